/**
 * A maximal create request: its payload (1 MiB of text, up to 4 MiB as
 * UTF-8) plus seven base64 images. Upstream status callbacks echo the
 * request, so they may be as large.
 */
export const VIDEO_BODY_LIMIT = '48mb';

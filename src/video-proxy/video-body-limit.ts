import { DEFAULT_JSON_BODY_LIMITS, JsonBodyLimits, MIB } from '../common/http/json-body-limits';

/**
 * A maximal create request: its payload (1 MiB of text, up to 4 MiB as
 * UTF-8) plus seven base64 images, so large strings but few values (about
 * 30 fields, 7 images). Upstream status callbacks echo the request, so they
 * may be as large.
 */
export const VIDEO_BODY_LIMITS: JsonBodyLimits = {
  ...DEFAULT_JSON_BODY_LIMITS,
  maxBytes: 48 * MIB,
  maxValues: 1_000,
  maxArrayElements: 100,
};

export const VIDEO_MODELS = [
  'videoq3-pro',
  'videoq2-pro-fast',
  'videoq2-pro',
  'videoq2-turbo',
  'videoq1',
  'videoq1-classic',
  'video2.0',
] as const;
export type VideoModel = (typeof VIDEO_MODELS)[number];

/** Longest video each model makes, in seconds (the spec's table; other models: 16). */
const MAX_DURATION: Partial<Record<VideoModel, number>> = {
  'videoq3-pro': 16,
  'videoq2-pro-fast': 10,
  'videoq2-pro': 8,
  'videoq2-turbo': 8,
};

export const MAX_DURATION_ANY_MODEL = 16;

export function maxDurationOf(model: VideoModel): number {
  return MAX_DURATION[model] ?? MAX_DURATION_ANY_MODEL;
}

/** Duration assumed for pricing when a request leaves it to the model. */
export const DEFAULT_DURATION_S = 5;

import { DEFAULT_DURATION_S, VIDEO_MODELS, VideoModel } from './video-models';

export type PriceTable = Record<VideoModel, number>;

/** Credits per second of video, by model (override with VIDEO_PRICE_TABLE). */
export const DEFAULT_PRICES: PriceTable = {
  'videoq3-pro': 10,
  'videoq2-pro-fast': 6,
  'videoq2-pro': 8,
  'videoq2-turbo': 5,
  'videoq1': 4,
  'videoq1-classic': 3,
  'video2.0': 3,
};

/** The spec's surcharge for `is_rec` (the recommended prompt). */
export const RECOMMENDED_PROMPT_SURCHARGE = 10;

export function parsePriceTable(json: string | undefined): PriceTable {
  if (!json) return { ...DEFAULT_PRICES };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error('must be a JSON object such as {"videoq3-pro": 12}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('must be a JSON object such as {"videoq3-pro": 12}');
  }
  const table = { ...DEFAULT_PRICES };
  for (const [model, price] of Object.entries(parsed)) {
    if (!(VIDEO_MODELS as readonly string[]).includes(model)) {
      throw new Error(`unknown model '${model}'`);
    }
    if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) {
      throw new Error(`price of '${model}' must be a non-negative number`);
    }
    table[model as VideoModel] = price;
  }
  return table;
}

export interface PriceInput {
  model: VideoModel;
  duration?: number;
  off_peak?: boolean;
  is_rec?: boolean;
}

/**
 * The credits reserved before a task is forwarded: per-second price times
 * duration, discounted off-peak, plus the is_rec surcharge. The upstream's own
 * figure settles the charge afterwards.
 */
export function estimateCredits(input: PriceInput, prices: PriceTable, offPeakPercent: number): number {
  const base = prices[input.model] * (input.duration ?? DEFAULT_DURATION_S);
  const discounted = input.off_peak ? (base * offPeakPercent) / 100 : base;
  return Math.ceil(discounted) + (input.is_rec ? RECOMMENDED_PROMPT_SURCHARGE : 0);
}

import type { PairedRatio } from "./round-statistics.js";

/**
 * How far apart the same code measures in one run: the A/A pair's round-by-round ratios, made
 * symmetric (a ratio r and 1/r are the same distance from a tie), so `low = 1 / high`.
 */
export interface NoiseBand {
  readonly low: number;
  readonly high: number;
}

/** The band of an A/A pair's paired ratio; null when the pair did not run. */
export const noiseBand = (aa: PairedRatio | null): NoiseBand | null => {
  if (aa === null) return null;
  const spread = Math.max(Math.abs(Math.log(aa.min)), Math.abs(Math.log(aa.max)));
  return { low: Math.exp(-spread), high: Math.exp(spread) };
};

/** What a ratio against the baseline says once the run's own noise is taken into account. */
export type Verdict = "faster" | "slower" | "within noise";

/**
 * `faster` or `slower` only when the median ratio lies outside the A/A band; a ratio inside it
 * is a difference this run cannot tell from measuring the same code twice.
 */
export const verdictOf = (ratio: PairedRatio | null, band: NoiseBand | null): Verdict | null => {
  if (ratio === null || band === null) return null;
  if (ratio.median > band.high) return "faster";
  if (ratio.median < band.low) return "slower";
  return "within noise";
};

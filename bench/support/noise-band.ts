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

/** Where a median ratio lies against a band; null without either. */
export const sideOfBand = (
  ratio: PairedRatio | null,
  band: NoiseBand | null,
): "above" | "below" | "within" | null => {
  if (ratio === null || band === null) return null;
  if (ratio.median > band.high) return "above";
  if (ratio.median < band.low) return "below";
  return "within";
};

/**
 * `faster` or `slower` only when the median ratio lies outside the A/A band; a ratio inside it
 * is a difference this run cannot tell from measuring the same code twice.
 */
export const verdictOf = (ratio: PairedRatio | null, band: NoiseBand | null): Verdict | null => {
  const side = sideOfBand(ratio, band);
  if (side === null) return null;
  return side === "above" ? "faster" : side === "below" ? "slower" : "within noise";
};

/**
 * The widest of several A/A bands (several twins in one run): a difference must stand out from
 * the noise of every one of them. Null when no band is known.
 */
export const widestBand = (bands: readonly (NoiseBand | null)[]): NoiseBand | null =>
  bands.reduce<NoiseBand | null>(
    (widest, band) =>
      band === null || (widest !== null && widest.high >= band.high) ? widest : band,
    null,
  );

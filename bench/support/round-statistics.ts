/** The median of some numbers; NaN for none. */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/** How one contender's per-round figure compares with another's in the same rounds. */
export interface PairedRatio {
  /** Median over rounds of `ours[i] / theirs[i]`. */
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/**
 * Compares two contenders round by round: `ours[i] / theirs[i]` for every round both ran. In the
 * flaky scenario a round's rate is set by its unluckiest event, which is the same event for every
 * contender of that round and a different one in the next, so rates swing by ±10% from round to
 * round while the ratio within a round moves by a few percent: the per-round ratio is the
 * sharper answer to "which is faster in the same run". Null when no round has both.
 */
export const pairedRatio = (
  ours: readonly number[],
  theirs: readonly number[],
): PairedRatio | null => {
  const ratios = ours.flatMap((value, round) => {
    const other = theirs[round];
    return other === undefined || other <= 0 ? [] : [value / other];
  });
  if (ratios.length === 0) return null;
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
};

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/** A paired ratio to three decimals, as the bench prints them. */
export const round3Ratio = (ratio: PairedRatio | null): PairedRatio | null =>
  ratio === null
    ? null
    : { median: round3(ratio.median), min: round3(ratio.min), max: round3(ratio.max) };

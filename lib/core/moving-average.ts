/**
 * An exponentially weighted moving average moved by one sample: `weight` of the way from
 * `average` to `value`, or the value itself when there is no average yet. One rule for every
 * running average the limits keep (a target's latency and calls in flight, a permit's hold).
 */
export const movingAverage = (
  average: number | undefined,
  value: number,
  weight: number,
): number => (average === undefined ? value : average + (value - average) * weight);

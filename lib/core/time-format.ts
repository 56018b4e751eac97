/* How times read in records, reports and terminal output: one spelling for each. */

/**
 * A duration for people, in its two largest adjacent units: `45s`, `15m 15s`, `2h 5m`, `1h`.
 * The remainder below the second unit is dropped: it is for reading, not arithmetic.
 */
export const formatSeconds = (totalSeconds: number): string => {
  const seconds = Math.round(totalSeconds);
  const units: readonly (readonly [number, string])[] = [
    [86_400, "d"],
    [3_600, "h"],
    [60, "m"],
    [1, "s"],
  ];
  const first = units.findIndex(([size]) => seconds >= size);
  if (first === -1) return "0s";
  const [size, unit] = units[first] as readonly [number, string];
  const amount = Math.floor(seconds / size);
  const next = units[first + 1];
  if (next === undefined) return `${amount}${unit}`;
  const nextAmount = Math.floor((seconds - amount * size) / next[0]);
  return nextAmount === 0 ? `${amount}${unit}` : `${amount}${unit} ${nextAmount}${next[1]}`;
};

/** An epoch-milliseconds instant as the ISO 8601 text records and reports carry. */
export const isoOf = (ms: number): string => new Date(ms).toISOString();

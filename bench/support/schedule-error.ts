import type { EventRecord } from "../../lib/core/record.js";
import type { ReceiverCall } from "./seeded-receiver.js";

/** The p-th percentile (0–100) by nearest rank; null for no samples. */
export const percentile = (values: readonly number[], p: number): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? null;
};

/**
 * How late each retry started against when Ricochet meant it to: for every history entry that
 * scheduled a retry, intended = finishedAt + delaySeconds, actual = when the receiver saw the
 * next call for that event (attempt n is the receiver's call n-1, so the retry is call n).
 */
const scheduleErrorSamples = (
  records: readonly EventRecord[],
  calls: ReadonlyMap<string, readonly ReceiverCall[]>,
): number[] =>
  records.flatMap((record) =>
    record.history.flatMap((entry) => {
      if (entry.delaySeconds === undefined) return [];
      const next = calls.get(record.eventId)?.[entry.attempt];
      if (next === undefined) return [];
      const intended = Date.parse(entry.finishedAt) + entry.delaySeconds * 1000;
      return [next.startedAt - intended];
    }),
  );

/** Median and 99th percentile of the retry scheduling error, in ms. */
export const scheduleErrors = (
  records: readonly EventRecord[],
  calls: ReadonlyMap<string, readonly ReceiverCall[]>,
): { scheduleErrorP50Ms: number | null; scheduleErrorP99Ms: number | null; retries: number } => {
  const samples = scheduleErrorSamples(records, calls);
  return {
    scheduleErrorP50Ms: percentile(samples, 50),
    scheduleErrorP99Ms: percentile(samples, 99),
    retries: samples.length,
  };
};

/**
 * For every failed call that was retried: ms from the failed call's arrival to the next call's
 * arrival at the receiver. Needs no records, so it compares contenders whose retry clocks start at
 * different moments (Ricochet's at the failure, a visibility timeout's at the receive).
 */
export const retryGapSamples = (calls: ReadonlyMap<string, readonly ReceiverCall[]>): number[] =>
  [...calls.values()].flatMap((list) =>
    list.flatMap((call, index) => {
      const next = list[index + 1];
      return call.status >= 500 && next !== undefined ? [next.startedAt - call.startedAt] : [];
    }),
  );

import type { ReceiverCall } from "./seeded-receiver.js";

/** Ms from `startedAt` to each event's first successful call, earliest first. */
export const deliveryTimes = (
  calls: ReadonlyMap<string, readonly ReceiverCall[]>,
  startedAt: number,
): number[] =>
  [...calls.values()]
    .flatMap((list) => {
      const first = list.find((call) => call.status >= 200 && call.status < 300);
      return first === undefined ? [] : [first.startedAt - startedAt];
    })
    .sort((a, b) => a - b);

/** The share of events whose delivery times the throughput figure counts. */
const THROUGHPUT_SHARE = 0.95;

/**
 * Events per second until {@link THROUGHPUT_SHARE} of `total` events were delivered. The last
 * few events of a flaky round are the ones that failed again and again, the same events for
 * every contender; how long their chain of retries takes is set by the schedule, not by the
 * engine, and a rate to the very last delivery measured that chain. Null when fewer arrived.
 */
export const throughputOf = (times: readonly number[], total: number): number | null => {
  const counted = Math.ceil(total * THROUGHPUT_SHARE);
  const at = times[counted - 1];
  return at === undefined ? null : (counted / Math.max(1, at)) * 1000;
};

import type { AttemptEntry, EventRecord } from "./record.js";
import { targetKeyOfRecord } from "./target-key.js";

/*
 * How each target has been doing, minute by minute, from what records already hold: every
 * history entry carries its claim, send and finish times and its outcome, and a waiting record
 * its latest deferral. Nothing is written for this (the success path's cost stays as it is);
 * the picture is only as complete as the records read, which the caller bounds and says.
 */

/** What happened to an event at a target in a minute. */
export const ActivityKind = {
  DELIVERED: "delivered",
  /** A failed attempt with another one scheduled. */
  RETRIED: "retried",
  /** A failed attempt that ended the event (permanent, or its budget or deadline spent). */
  FAILED: "failed",
  /** Held back by the target's breaker or limits (the record keeps its latest deferral only). */
  DEFERRED: "deferred",
} as const;
export type ActivityKind = (typeof ActivityKind)[keyof typeof ActivityKind];

/** The kinds in the order a chart stacks them, bottom first. */
export const ACTIVITY_KINDS: readonly ActivityKind[] = Object.values(ActivityKind);

export const MINUTE_MS = 60_000;

/** Call latency percentiles in ms, nearest-rank, over `calls` calls. */
export interface LatencyPercentiles {
  readonly calls: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

/** One minute of one target. */
export interface ActivityMinute {
  /** The minute's first instant, epoch ms. */
  readonly startMs: number;
  readonly counts: Readonly<Record<ActivityKind, number>>;
  readonly latency?: LatencyPercentiles | undefined;
}

/** One target's minutes, oldest first, and its latency over the whole window. */
export interface TargetActivity {
  readonly target: string;
  readonly minutes: readonly ActivityMinute[];
  readonly totals: Readonly<Record<ActivityKind, number>>;
  readonly latency?: LatencyPercentiles | undefined;
}

/** The minutes drawn: the `minutes` whole minutes up to and including the one `nowMs` is in. */
export interface ActivityWindow {
  readonly nowMs: number;
  readonly minutes: number;
}

/** What an attempt counts as: delivered, retried (a next attempt was scheduled) or failed. */
export const activityKindOf = (entry: AttemptEntry): ActivityKind => {
  if (entry.outcome === "success") return ActivityKind.DELIVERED;
  return entry.delaySeconds === undefined ? ActivityKind.FAILED : ActivityKind.RETRIED;
};

/** How long the target took to answer, when a call was made and its send time is known. */
export const callLatencyMs = (entry: AttemptEntry): number | undefined => {
  if (entry.noCall === true || entry.sentAt === undefined) return undefined;
  const ms = Date.parse(entry.finishedAt) - Date.parse(entry.sentAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
};

/** The value at rank ⌈p·n⌉ of the sorted values (nearest-rank: always one of the values). */
const nearestRank = (sorted: readonly number[], p: number): number =>
  sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;

/** p50, p90 and p99 of `values`; undefined when there are none. */
export const latencyPercentiles = (values: readonly number[]): LatencyPercentiles | undefined => {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return {
    calls: sorted.length,
    p50: nearestRank(sorted, 0.5),
    p90: nearestRank(sorted, 0.9),
    p99: nearestRank(sorted, 0.99),
  };
};

const noCounts = (): Record<ActivityKind, number> => ({
  delivered: 0,
  retried: 0,
  failed: 0,
  deferred: 0,
});

/** One target's tallies while records are read. */
interface Tally {
  readonly counts: Record<ActivityKind, number>[];
  readonly latencies: number[][];
}

/** The window's first instant, epoch ms. */
export const windowStartMs = (window: ActivityWindow): number =>
  (Math.floor(window.nowMs / MINUTE_MS) + 1 - window.minutes) * MINUTE_MS;

const minuteIndex = (window: ActivityWindow, atMs: number): number | undefined => {
  const index = Math.floor((atMs - windowStartMs(window)) / MINUTE_MS);
  return Number.isInteger(index) && index >= 0 && index < window.minutes ? index : undefined;
};

const tallyOf = (tallies: Map<string, Tally>, target: string, minutes: number): Tally => {
  const found = tallies.get(target);
  if (found !== undefined) return found;
  const created: Tally = {
    counts: Array.from({ length: minutes }, noCounts),
    latencies: Array.from({ length: minutes }, () => []),
  };
  tallies.set(target, created);
  return created;
};

const tallyRecord = (tallies: Map<string, Tally>, record: EventRecord, window: ActivityWindow) => {
  const target = targetKeyOfRecord(record) ?? record.targetSummary ?? "unknown target";
  for (const entry of record.history) {
    const index = minuteIndex(window, Date.parse(entry.finishedAt));
    if (index === undefined) continue;
    const tally = tallyOf(tallies, target, window.minutes);
    (tally.counts[index] as Record<ActivityKind, number>)[activityKindOf(entry)] += 1;
    const latency = callLatencyMs(entry);
    if (latency !== undefined) tally.latencies[index]?.push(latency);
  }
  const deferral = record.deferral;
  const index = deferral === undefined ? undefined : minuteIndex(window, Date.parse(deferral.at));
  if (deferral !== undefined && index !== undefined) {
    const tally = tallyOf(tallies, deferral.targetKey, window.minutes);
    (tally.counts[index] as Record<ActivityKind, number>).deferred += 1;
  }
};

const activityOf = (target: string, tally: Tally, window: ActivityWindow): TargetActivity => {
  const start = windowStartMs(window);
  const totals = noCounts();
  for (const counts of tally.counts)
    for (const kind of ACTIVITY_KINDS) totals[kind] += counts[kind];
  return {
    target,
    minutes: tally.counts.map((counts, i) => ({
      startMs: start + i * MINUTE_MS,
      counts,
      latency: latencyPercentiles(tally.latencies[i] ?? []),
    })),
    totals,
    latency: latencyPercentiles(tally.latencies.flat()),
  };
};

const troubleOf = (a: TargetActivity): number => a.totals.failed + a.totals.retried;

/**
 * Per target, the window's minutes: attempts by the minute they finished, deferrals by the
 * minute of the record's latest one. Targets with the most trouble (failed and retried) first.
 */
export const targetActivity = (
  records: readonly EventRecord[],
  window: ActivityWindow,
): TargetActivity[] => {
  const tallies = new Map<string, Tally>();
  for (const record of records) tallyRecord(tallies, record, window);
  return [...tallies]
    .map(([target, tally]) => activityOf(target, tally, window))
    .sort((a, b) => troubleOf(b) - troubleOf(a) || a.target.localeCompare(b.target));
};

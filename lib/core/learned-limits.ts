import type { LimitChange } from "./adaptive-limit.js";
import type { OthersSeen } from "./fleet-share.js";
import { type RefusalTracks, summedTracks } from "./refusal-noise.js";

/*
 * The adaptive limits each instance learned (issue #35), as the target's item shows them to
 * operators: one entry per instance, written only while the instance holds the target below its
 * ceiling (lib/app/orchestrator/learned-limit-publisher.ts). Readers sum the fresh entries: the partner sees
 * the sum of the instances' rates, not any one of them.
 */

/**
 * How long an entry counts after it was written. An instance rewrites its entry at least every
 * {@link LEARNED_REFRESH_MS} while engaged, and a Lambda instance can stop without a word (frozen,
 * then reclaimed): an entry not rewritten for a minute is from an instance that stopped or lost
 * its writes, and its rate is no longer sent to the partner.
 */
export const LEARNED_ENTRY_STALE_MS = 60_000;

/**
 * How often an engaged instance rewrites an unchanged entry. Each write brings back the other
 * instances' entries, from which an instance takes its share of the target's pace
 * (./fleet-share.ts): every 5 s keeps that share current, and a twelfth of the staleness bound
 * means many lost writes before a live instance's entry reads as stale. At 100 instances holding
 * one target back that is 20 writes a second on its item, beside the breaker's.
 */
export const LEARNED_REFRESH_MS = 5_000;

/**
 * Most entries a target's item keeps (about 150 bytes each): bounds the item, which every breaker
 * write also pays for by its size. Beyond it the oldest-written are dropped.
 */
export const MAX_LEARNED_ENTRIES = 32;

/** One instance's learned limit for one target, as it last wrote it. */
export interface LearnedLimitEntry {
  readonly instanceId: string;
  /** The rate the instance allows now, calls/s (0 while the target's breaker is open). */
  readonly callsPerSecond: number;
  readonly ceilingPerSecond: number;
  readonly maxConcurrentCalls: number;
  /** Why the limit last changed. */
  readonly reason: LimitChange;
  readonly changedAtMs: number;
  readonly writtenAtMs: number;
  /**
   * The instance's counts of the target's 429s around its cuts, pooled by the others to tell a
   * quota from noise (./refusal-noise.ts); unset: none (or an older deployment's entry).
   */
  readonly refusals?: RefusalTracks | undefined;
}

/** What operators are told of a target's learned limit, summed over the fresh entries. */
export interface LearnedLimitSummary {
  /** The rates of the instances summed: what the partner is sent at most. */
  readonly callsPerSecond: number;
  readonly instances: number;
  /** The highest ceiling among them (instances may run different deployments' settings). */
  readonly ceilingPerSecond: number;
  readonly maxConcurrentCalls: number;
  /** The most recent change among the instances. */
  readonly reason: LimitChange;
  readonly changedAtMs: number;
}

const isFresh = (entry: LearnedLimitEntry, nowMs: number): boolean =>
  nowMs - entry.writtenAtMs <= LEARNED_ENTRY_STALE_MS;

const newestFirst = (entries: readonly LearnedLimitEntry[]): LearnedLimitEntry[] =>
  [...entries].sort((a, b) => b.writtenAtMs - a.writtenAtMs);

/** The entries readers count: fresh ones, at most {@link MAX_LEARNED_ENTRIES}, newest first. */
const freshEntries = (entries: readonly LearnedLimitEntry[], nowMs: number): LearnedLimitEntry[] =>
  newestFirst(entries)
    .filter((entry) => isFresh(entry, nowMs))
    .slice(0, MAX_LEARNED_ENTRIES);

/** The entries a writer removes: the stale, and the oldest beyond {@link MAX_LEARNED_ENTRIES}. */
export const entriesToPrune = (
  entries: readonly LearnedLimitEntry[],
  nowMs: number,
): LearnedLimitEntry[] => {
  const kept = new Set(freshEntries(entries, nowMs));
  return entries.filter((entry) => !kept.has(entry));
};

/** `fresh` summed; undefined when there is none (no instance holds the target back). */
const summaryOf = (fresh: readonly LearnedLimitEntry[]): LearnedLimitSummary | undefined => {
  if (fresh.length === 0) return undefined;
  const latest = fresh.reduce((a, b) => (b.changedAtMs > a.changedAtMs ? b : a));
  return {
    callsPerSecond: fresh.reduce((sum, entry) => sum + entry.callsPerSecond, 0),
    instances: fresh.length,
    ceilingPerSecond: Math.max(...fresh.map((entry) => entry.ceilingPerSecond)),
    maxConcurrentCalls: fresh.reduce((sum, entry) => sum + entry.maxConcurrentCalls, 0),
    reason: latest.reason,
    changedAtMs: latest.changedAtMs,
  };
};

/** The fresh entries summed; undefined when there is none (no instance holds the target back). */
export const learnedSummary = (
  entries: readonly LearnedLimitEntry[],
  nowMs: number,
): LearnedLimitSummary | undefined => summaryOf(freshEntries(entries, nowMs));

/** What operators read for a target no instance holds back. */
export const NOT_ENGAGED_TEXT = "at ceiling";

/** A rate for reading: a decimal below 10 calls/s, where one call/s is a large part of it. */
export const rateText = (callsPerSecond: number): string =>
  `${callsPerSecond < 10 ? Math.round(callsPerSecond * 10) / 10 : Math.round(callsPerSecond)}/s`;

/** `18/s over 3 instances`, or {@link NOT_ENGAGED_TEXT}. */
export const learnedLimitText = (
  learned: Pick<LearnedLimitSummary, "callsPerSecond" | "instances"> | undefined,
): string =>
  learned === undefined
    ? NOT_ENGAGED_TEXT
    : `${rateText(learned.callsPerSecond)} over ${learned.instances} instance${learned.instances === 1 ? "" : "s"}`;

/**
 * What the other instances' entries say of the target: their {@link learnedSummary}'s rate and
 * instances, and their refusal counts summed, heard now; undefined when none is fresh.
 */
export const othersOf = (
  entries: readonly LearnedLimitEntry[],
  nowMs: number,
): OthersSeen | undefined => {
  const fresh = freshEntries(entries, nowMs);
  const summary = summaryOf(fresh);
  if (summary === undefined) return undefined;
  const counted = fresh.flatMap((entry) => entry.refusals ?? []);
  return {
    perSecond: summary.callsPerSecond,
    instances: summary.instances,
    seenAtMs: nowMs,
    ...(counted.length === 0 ? {} : { refusals: counted.reduce(summedTracks) }),
  };
};

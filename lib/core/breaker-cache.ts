import { type BreakerSettings, closedBreaker, trips } from "./circuit-breaker.js";
import type { StoredBreaker } from "./ports.js";

/*
 * What one instance holds of a target's shared breaker (lib/app/orchestrator/target-breakers.ts):
 * the breaker as it last read it, the calls it counted since it last wrote, and when it writes
 * them. Pure values; the cache that keeps them and the writes are the orchestrator's business.
 */

/**
 * Failures are held in memory and written together at most this often per instance and target
 * (the first after a quiet spell at once, and at once whenever what this instance knows would
 * trip the breaker): a target failing 30% of a busy stream must not cost a write per failure.
 * An instance that has just started counting (new, or after a state change) holds its failures
 * this long whatever they say, so that its first write carries a second of its calls: written
 * at once, with the one or two successes it had seen or on its own first ten calls' verdict, the
 * first writes of 100 instances starting together opened a breaker that 5 % of calls failed,
 * and one 20 % failed in 19 of 20 runs (test/system/target-items-write-rate.test.ts).
 * A held count is lost if the instance stops; the breaker then opens a little later, never
 * wrongly.
 */
export const FAILURE_FLUSH_MS = 1_000;

/** One instance's view of one target's breaker, and the calls it holds for its next write. */
export interface CachedBreaker {
  readonly stored: StoredBreaker;
  /** Successful calls since this instance last wrote, sent with its next failure write. */
  readonly successes: number;
  /** Failed calls since this instance last wrote its failures. */
  readonly failures: number;
  /** The latest of those failures' error excerpts, written with them. */
  readonly lastError?: string | undefined;
  /** When this instance last wrote failures for the target, or began counting its calls. */
  readonly failuresWrittenAtMs: number;
  /** Whether it has written any since it began counting: until then it waits its interval. */
  readonly written: boolean;
}

/** A view of `stored` that starts counting at `nowMs`: its first failures wait for a second of calls. */
export const countingFrom = (stored: StoredBreaker, nowMs: number): CachedBreaker => ({
  stored,
  successes: 0,
  failures: 0,
  failuresWrittenAtMs: nowMs,
  written: false,
});

/** The view of a target this instance has not read yet: a closed breaker nothing stored. */
export const unseenBreaker = (key: string, nowMs: number): CachedBreaker =>
  countingFrom({ key, breaker: closedBreaker(nowMs), version: 0 }, nowMs);

/**
 * The view after a write returned `stored`; `restart` (the write changed the state): drop the
 * counts held, which belong to the state it ended. Undefined when `stored` is older than the
 * view: answers to concurrent writes come back in any order, and a lost race's answer, read
 * before the winner's opening, must not close the breaker again here.
 */
export const adopted = (
  entry: CachedBreaker,
  stored: StoredBreaker,
  restart: boolean,
  nowMs: number,
): CachedBreaker | undefined => {
  if (stored.version < entry.stored.version) return undefined;
  return restart ? countingFrom(stored, nowMs) : { ...entry, stored };
};

/** The view after a call admitted while closed ended; `lastError` is its failure's excerpt. */
export const callHeld = (
  entry: CachedBreaker,
  failed: boolean,
  lastError: string | undefined,
): CachedBreaker =>
  failed
    ? { ...entry, failures: entry.failures + 1, lastError: lastError ?? entry.lastError }
    : { ...entry, successes: entry.successes + 1 };

/** The view once its held calls are taken out for a write at `nowMs`. */
export const failuresTaken = (entry: CachedBreaker, nowMs: number): CachedBreaker => ({
  ...entry,
  successes: 0,
  failures: 0,
  lastError: undefined,
  failuresWrittenAtMs: nowMs,
  written: true,
});

/**
 * Whether the failures held are written now or kept for a later write: once
 * {@link FAILURE_FLUSH_MS} has passed, or sooner when what the view knows would trip the breaker
 * (never before the first write since it began counting).
 */
export const failuresDue = (
  entry: CachedBreaker,
  nowMs: number,
  settings: BreakerSettings,
): boolean => {
  if (nowMs - entry.failuresWrittenAtMs >= FAILURE_FLUSH_MS) return true;
  if (!entry.written) return false;
  const { breaker } = entry.stored;
  const current = nowMs - breaker.windowStartMs < settings.windowMs;
  const calls = (current ? breaker.calls : 0) + entry.successes + entry.failures;
  const failures = (current ? breaker.failures : 0) + entry.failures;
  return trips(calls, failures, settings);
};

import { errorWithName } from "../../core/errors.js";
import type { Log } from "../../core/observability.js";
import type { TargetLimitsStore } from "../../core/ports.js";
import type { Clock, RandomSource } from "../../core/random.js";
import {
  RATE_WINDOW_MS,
  rateBatchSize,
  rateGranted,
  rateVerdict,
  rateWindowOf,
  slotRetryAt,
  slotsToTry,
} from "../../core/target-limits.js";
import type { TargetLimits } from "../../core/target-settings.js";

/** Which limit turned a call away. */
export const LimitKind = {
  RATE: "rate",
  CONCURRENCY: "concurrency",
} as const;
export type LimitKind = (typeof LimitKind)[keyof typeof LimitKind];

/** A call's leave to run: `release` after it, whatever happened (it never throws). */
export interface CallPermit {
  release(): Promise<void>;
}

/** What the orchestrator may do with a call to a target now, as far as its limits go. */
export type LimitAdmission =
  | { readonly verdict: "call"; readonly permit: CallPermit }
  /** Over a limit: defer the event to `untilMs` without spending an attempt. */
  | { readonly verdict: "defer"; readonly untilMs: number; readonly limit: LimitKind };

/** The per-instance face of the targets' shared limits. */
export interface TargetLimiter {
  /**
   * Asks to call the target now; `leaseMs` is how long the call may hold a concurrency slot
   * if its instance stops before giving it back.
   */
  admit(key: string, leaseMs: number): Promise<LimitAdmission>;
}

export interface TargetLimiterDeps {
  readonly store: TargetLimitsStore;
  readonly limitsFor: (key: string) => TargetLimits;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly log: Log;
  /** Names this instance in the slots it holds. */
  readonly instanceId: string;
}

export const NO_PERMIT: CallPermit = { release: async () => {} };

/** This instance's share of a target's rate window: calls counted for it and not yet made. */
interface RateBucket {
  /** The window the counter counted them into (later than this clock's, if it is behind). */
  windowStartMs: number;
  tokens: number;
  used: number;
  usedLastWindow: number;
  /** The counter turned part of an ask away: the window is full, ask one at a time. */
  full: boolean;
}

/** The bucket for the window `nowMs` falls in: a new window drops what the last one left. */
const bucketAt = (bucket: RateBucket | undefined, nowMs: number): RateBucket => {
  const windowStartMs = rateWindowOf(nowMs);
  if (bucket !== undefined && windowStartMs <= bucket.windowStartMs) return bucket;
  const follows = bucket !== undefined && windowStartMs === bucket.windowStartMs + RATE_WINDOW_MS;
  return {
    windowStartMs,
    tokens: 0,
    used: 0,
    usedLastWindow: follows ? bucket.used : 0,
    full: false,
  };
};

/**
 * Limits shared through `store`. A target without limits costs nothing; the rate limit costs one
 * write per batch of calls (an instance takes as many as it made in its last window, at most 5 %
 * of the limit, so a steady caller writes about once a window), the concurrency limit one write
 * to take a slot and one to give it back.
 *
 * Unlike the breakers (our own protection, which fail open), a limit is a promise to the target:
 * when the store cannot be asked, the call is deferred a second or two, with a warning. A slot
 * taken by a write whose answer was lost is held until its lease lapses: less capacity, never
 * more.
 */
export const createTargetLimiter = (deps: TargetLimiterDeps): TargetLimiter => {
  const { store, limitsFor, clock, random, log, instanceId } = deps;
  /** Slots this instance holds per target: at the limit it defers without asking the store. */
  const held = new Map<string, number>();
  const buckets = new Map<string, RateBucket>();
  let calls = 0;

  /** A limit that cannot be checked is taken as reached: the target's bound is a promise. */
  const failClosed = (key: string, limit: LimitKind, error: unknown): LimitAdmission => {
    log.warn("target limits store failed; deferring the call", {
      target: key,
      limit,
      error: errorWithName(error),
    });
    return { verdict: "defer", untilMs: slotRetryAt(clock(), random), limit };
  };

  const overRate = async (key: string, limit: number): Promise<LimitAdmission | undefined> => {
    const nowMs = clock();
    const bucket = bucketAt(buckets.get(key), nowMs);
    buckets.set(key, bucket);
    if (bucket.tokens > 0) {
      bucket.tokens -= 1;
      bucket.used += 1;
      return undefined;
    }
    const usedRecently = Math.max(bucket.usedLastWindow, bucket.used);
    const asked = rateBatchSize(limit, usedRecently, bucket.full);
    const counted = await store.countCall(key, rateWindowOf(nowMs), nowMs, asked);
    const granted = rateGranted(counted.count, asked, limit);
    keepGrant(key, counted.windowStartMs, granted, granted < asked);
    if (granted === 0) {
      // The first of the asked calls' place in the count: the turned-away return in that order.
      const verdict = rateVerdict(counted.windowStartMs, counted.count - asked + 1, limit);
      const untilMs = verdict.verdict === "defer" ? verdict.untilMs : slotRetryAt(nowMs, random);
      return { verdict: "defer", untilMs, limit: LimitKind.RATE };
    }
    return undefined;
  };

  /**
   * Keeps what the counter granted beyond the call that asked, for the window it was counted
   * in: another ask may have moved the bucket on meanwhile, and calls counted into one window
   * are never spent in a later one.
   */
  const keepGrant = (key: string, windowStartMs: number, granted: number, full: boolean): void => {
    const bucket = buckets.get(key);
    if (bucket !== undefined && bucket.windowStartMs > windowStartMs) return;
    const current = bucketAt(bucket, windowStartMs);
    current.full ||= full;
    current.tokens += Math.max(0, granted - 1);
    current.used += granted > 0 ? 1 : 0;
    buckets.set(key, current);
  };

  const takeSlot = async (key: string, max: number, leaseMs: number): Promise<LimitAdmission> => {
    const nowMs = clock();
    const turnedAway: LimitAdmission = {
      verdict: "defer",
      untilMs: slotRetryAt(nowMs, random),
      limit: LimitKind.CONCURRENCY,
    };
    if ((held.get(key) ?? 0) >= max) return turnedAway;
    calls += 1;
    const holder = `${instanceId}#${calls}`;
    for (const slot of slotsToTry(max, random)) {
      const taken = await store.takeSlot({
        key,
        slot,
        holder,
        nowMs,
        leaseUntilMs: nowMs + leaseMs,
      });
      if (!taken) continue;
      held.set(key, (held.get(key) ?? 0) + 1);
      return {
        verdict: "call",
        permit: {
          release: async () => {
            held.set(key, (held.get(key) ?? 1) - 1);
            try {
              await store.releaseSlot(key, slot, holder);
            } catch (error) {
              // The slot stays taken until its lease lapses: less capacity, never more.
              log.warn("could not give a target's concurrency slot back", {
                target: key,
                slot,
                error: errorWithName(error),
              });
            }
          },
        },
      };
    }
    return turnedAway;
  };

  const admit = async (key: string, leaseMs: number): Promise<LimitAdmission> => {
    const { maxCallsPerSecond, maxConcurrentCalls } = limitsFor(key);
    if (maxCallsPerSecond !== undefined) {
      const over = await overRate(key, maxCallsPerSecond).catch((error: unknown) =>
        failClosed(key, LimitKind.RATE, error),
      );
      if (over !== undefined) return over;
    }
    if (maxConcurrentCalls === undefined) return { verdict: "call", permit: NO_PERMIT };
    return takeSlot(key, maxConcurrentCalls, leaseMs).catch((error: unknown) =>
      failClosed(key, LimitKind.CONCURRENCY, error),
    );
  };

  return { admit };
};

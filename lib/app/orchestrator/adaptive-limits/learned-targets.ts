import {
  type AdaptiveLimit,
  type AdaptiveLimitSettings,
  startingLimit,
} from "../../../core/adaptive-limit.js";
import { movingAverage } from "../../../core/moving-average.js";
import type { Log } from "../../../core/observability.js";
import type { Clock, RandomSource } from "../../../core/random.js";
import { rateWindowOf } from "../../../core/target-limits.js";
import type { LearnedLimitPublisher } from "../learned-limit-publisher.js";
import type { CallPermit } from "../target-limits.js";

/**
 * What one instance knows of one target: its limit, and its calls asked and in flight. Mutable:
 * a permit gives its call back to the target it was taken from, even once that is forgotten.
 */
export interface LearnedTarget {
  limit: AdaptiveLimit;
  /** The aligned second the asks are counted in, and how many were asked in it. */
  windowStartMs: number;
  asked: number;
  inFlight: number;
  /** How long a permit is held, averaged (ms): the claim and the record's writes, not only the call. */
  holdMs: number | undefined;
}

/** What the adaptive limiter's operations work on: its settings, and the targets it remembers. */
export interface AdaptiveContext {
  readonly settingsFor: (key: string) => AdaptiveLimitSettings;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly log: Log;
  /** Targets remembered at most; the least recently called is forgotten first. */
  readonly maxTargets: number;
  /** Least recently used first. */
  readonly targets: Map<string, LearnedTarget>;
  /** Where learned limits are written for operators; none: they stay in memory. */
  readonly publisher: LearnedLimitPublisher | undefined;
}

/** The target's state, made the most recently used; the least recently used is forgotten. */
export const touch = (
  context: AdaptiveContext,
  key: string,
  nowMs: number,
  settings: AdaptiveLimitSettings,
): LearnedTarget => {
  const { targets } = context;
  const found = targets.get(key);
  if (found !== undefined) targets.delete(key);
  const target = found ?? {
    limit: startingLimit(nowMs, settings),
    windowStartMs: rateWindowOf(nowMs),
    asked: 0,
    inFlight: 0,
    holdMs: undefined,
  };
  targets.set(key, target);
  if (targets.size > context.maxTargets) {
    const oldest = targets.keys().next().value;
    if (oldest !== undefined) targets.delete(oldest);
  }
  return target;
};

/** Weight of each permit's hold time in its average. */
const HOLD_WEIGHT = 0.1;

/** A call to `target` in flight until its permit is given back, which also times the hold. */
export const permitFor = (context: AdaptiveContext, target: LearnedTarget): CallPermit => {
  target.inFlight += 1;
  const startedMs = context.clock();
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      target.inFlight -= 1;
      target.holdMs = movingAverage(target.holdMs, context.clock() - startedMs, HOLD_WEIGHT);
    },
  };
};

/** The call `target` asks for now, counted into its aligned second. */
export const askedNow = (target: LearnedTarget, nowMs: number): number => {
  const windowStartMs = rateWindowOf(nowMs);
  if (windowStartMs > target.windowStartMs) {
    target.windowStartMs = windowStartMs;
    target.asked = 0;
  }
  target.asked += 1;
  return target.asked;
};

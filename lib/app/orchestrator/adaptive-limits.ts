import {
  type AdaptiveLimit,
  type AdaptiveLimitSettings,
  type Allowance,
  allowance,
  LimitChange,
  type LimitObservation,
  next,
  startingLimit,
} from "../../core/adaptive-limit.js";
import { movingAverage } from "../../core/moving-average.js";
import type { Log } from "../../core/observability.js";
import type { TargetStateStore } from "../../core/ports.js";
import type { Clock, RandomSource } from "../../core/random.js";
import { rateVerdict, rateWindowOf, slotRetryAt } from "../../core/target-limits.js";
import {
  createLearnedLimitPublisher,
  type LearnedLimitPublisher,
} from "./learned-limit-publisher.js";
import { type CallPermit, type LimitAdmission, LimitKind } from "./target-limits.js";

/*
 * Each target held, on this instance, to the pace its calls say it can take (issue #35): the
 * adaptive limit of lib/core/adaptive-limit.ts, learned from this instance's calls and enforced
 * on them, in memory. No I/O at all: a healthy target is admitted exactly as without it.
 *
 * Enforced per instance on purpose. The controller cuts from the rate it saw sent, and what one
 * instance sees is its own calls: enforcing that cut through the shared counter would cut N
 * instances' sum N times too deep. Held locally, each instance is one AIMD flow, and N flows
 * cutting by the same factor on the same overload cut their sum by it (docs/design-notes.md,
 * "Adaptive per-target limits (#35)").
 */

/** Targets whose limits one instance remembers; the least recently called is forgotten first. */
const MAX_LEARNED_TARGETS = 1_000;

/** What one instance knows of one target: its limit, and its calls asked and in flight. */
interface LearnedTarget {
  limit: AdaptiveLimit;
  /** The aligned second the asks are counted in, and how many were asked in it. */
  windowStartMs: number;
  asked: number;
  inFlight: number;
  /** How long a permit is held, averaged (ms): the claim and the record's writes, not only the call. */
  holdMs: number | undefined;
}

/** A target's learned limit as operators see it. */
interface LearnedLimit {
  readonly key: string;
  /** The rate allowed now, calls/s (0 while the breaker is open). */
  readonly callsPerSecond: number;
  /** Its ceiling: the declared `maxCallsPerSecond`, or the most any target may be given. */
  readonly ceilingPerSecond: number;
  readonly maxConcurrentCalls: number;
  readonly reason: LimitChange;
  readonly changedAtMs: number;
}

/** One instance's adaptive limits. */
export interface AdaptiveLimiter {
  /** Whether a call to `key` may start now, as far as its learned limit goes. */
  admit(key: string): LimitAdmission;
  /** Teaches `key`'s limit what a call said, or that its breaker changed state. */
  observe(key: string, observation: LimitObservation): void;
  /** The targets whose limit is below its ceiling or paused, for operators. */
  engaged(): readonly LearnedLimit[];
}

export interface AdaptiveLimiterDeps {
  readonly settingsFor: (key: string) => AdaptiveLimitSettings;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly log: Log;
  /** Default {@link MAX_LEARNED_TARGETS}. */
  readonly maxTargets?: number | undefined;
  /**
   * Where the learned limits are written for operators, and this instance's id there; none: they
   * stay in memory (lib/app/orchestrator/learned-limit-publisher.ts).
   */
  readonly publish?:
    | {
        readonly store: Pick<TargetStateStore, "writeLearnedLimit">;
        readonly instanceId: string;
      }
    | undefined;
}

/**
 * Whether the limit holds calls back at all: its rate cut below the ceiling, or paused by a
 * `Retry-After`, or its breaker open. The concurrency a ceiling rate implies is not a limit
 * learned: a target that never pushed back is admitted as it would be without adaptive limits.
 */
const isEngaged = (limit: AdaptiveLimit, nowMs: number, settings: AdaptiveLimitSettings) => {
  const allowed = allowance(limit, nowMs, settings);
  return (
    allowed.notBeforeMs !== undefined ||
    allowed.callsPerSecond < settings.maxCallsPerSecond ||
    allowed.learnedConcurrency !== undefined
  );
};

/** The changes operators are told of: a cut, a pause and the breaker; not each small increase. */
const TOLD_CHANGES: ReadonlySet<LimitChange> = new Set([
  LimitChange.OVERLOAD,
  LimitChange.LATENCY,
  LimitChange.RETRY_AFTER,
]);

/** Weight of each permit's hold time in its average. */
const HOLD_WEIGHT = 0.1;

/**
 * Calls in flight allowed: the controller's (Little's law on the call's latency), but never
 * fewer than a second's calls, nor than the rate needs for as long as a permit is held (with the
 * controller's headroom), unless the target's overloads taught how many it can take at once.
 * Messages come in batches and the rate is counted per aligned second, so a second's calls may
 * all start at once; and a permit covers the claim and the record's writes as well as the call.
 * Held to Little's law on a 5 ms call, a target allowed 3 calls/s got one at a time and every
 * other message of each batch deferred, half its rate delivered.
 */
const concurrencyOf = (
  allowed: Allowance,
  target: LearnedTarget,
  perSecond: number,
  settings: AdaptiveLimitSettings,
): number => {
  if (allowed.maxConcurrentCalls === 0) return 0;
  const needed = Math.ceil(
    ((perSecond * (target.holdMs ?? 0)) / 1_000) * settings.concurrencyHeadroom,
  );
  const most = Math.max(allowed.maxConcurrentCalls, perSecond, needed);
  return Math.min(settings.maxConcurrentCalls, most, allowed.learnedConcurrency ?? most);
};

/** The call `target` asks for now, counted into its aligned second. */
const askedNow = (target: LearnedTarget, nowMs: number): number => {
  const windowStartMs = rateWindowOf(nowMs);
  if (windowStartMs > target.windowStartMs) {
    target.windowStartMs = windowStartMs;
    target.asked = 0;
  }
  target.asked += 1;
  return target.asked;
};

/**
 * Limits learned and held in this instance's memory. Turned-away calls are deferred, as the
 * declared limits' are: no attempt spent, the deadline respected (the gate's business).
 */
export const createAdaptiveLimiter = (deps: AdaptiveLimiterDeps): AdaptiveLimiter => {
  const { settingsFor, clock, random, log } = deps;
  const maxTargets = deps.maxTargets ?? MAX_LEARNED_TARGETS;
  const targets = new Map<string, LearnedTarget>();

  /** The target's state, made the most recently used; the least recently used is forgotten. */
  const touch = (key: string, nowMs: number, settings: AdaptiveLimitSettings): LearnedTarget => {
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
    if (targets.size > maxTargets) {
      const oldest = targets.keys().next().value;
      if (oldest !== undefined) targets.delete(oldest);
    }
    return target;
  };

  const permitFor = (target: LearnedTarget): CallPermit => {
    target.inFlight += 1;
    const startedMs = clock();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        target.inFlight -= 1;
        target.holdMs = movingAverage(target.holdMs, clock() - startedMs, HOLD_WEIGHT);
      },
    };
  };

  const admit = (key: string): LimitAdmission => {
    const settings = settingsFor(key);
    const nowMs = clock();
    const target = touch(key, nowMs, settings);
    // Counted in flight even when not held back: the first overload learns from how many were out.
    if (!isEngaged(target.limit, nowMs, settings))
      return { verdict: "call", permit: permitFor(target) };
    const allowed = allowance(target.limit, nowMs, settings);
    if (allowed.notBeforeMs !== undefined)
      return { verdict: "defer", untilMs: allowed.notBeforeMs, limit: LimitKind.RATE };
    const perSecond = Math.max(1, Math.floor(allowed.callsPerSecond));
    if (target.inFlight >= concurrencyOf(allowed, target, perSecond, settings))
      return {
        verdict: "defer",
        untilMs: slotRetryAt(nowMs, random),
        limit: LimitKind.CONCURRENCY,
      };
    const verdict = rateVerdict(target.windowStartMs, askedNow(target, nowMs), perSecond);
    if (verdict.verdict === "defer")
      return { verdict: "defer", untilMs: verdict.untilMs, limit: LimitKind.RATE };
    return { verdict: "call", permit: permitFor(target) };
  };

  const observe = (key: string, observation: LimitObservation): void => {
    const settings = settingsFor(key);
    const nowMs = clock();
    const target = touch(key, nowMs, settings);
    const before = target.limit;
    // The gate tells a call's end after giving back its permit: the calls still out, and this one.
    const seen =
      observation.kind === "call" && observation.inFlight === undefined
        ? { ...observation, inFlight: target.inFlight + 1 }
        : observation;
    const after = next(before, seen, nowMs, settings);
    target.limit = after;
    const unlimited = Number.POSITIVE_INFINITY;
    const cut =
      after.callsPerSecond < before.callsPerSecond ||
      (after.concurrencyLimit ?? unlimited) < (before.concurrencyLimit ?? unlimited);
    const paused = after.pauseUntilMs !== before.pauseUntilMs;
    const logged = (cut || paused) && TOLD_CHANGES.has(after.reason);
    if (logged)
      log.info("target limit lowered", {
        target: key,
        callsPerSecond: Math.floor(after.callsPerSecond),
        reason: after.reason,
        ...(after.concurrencyLimit === undefined
          ? {}
          : { maxConcurrentCalls: Math.floor(after.concurrencyLimit) }),
        ...(after.pauseUntilMs === undefined ? {} : { pausedUntilMs: after.pauseUntilMs }),
      });
    if (publisher === undefined) return;
    // Material: a cut or pause, the breaker's zero or its end, held back or no longer.
    const breaker = after.breakerOpen !== before.breakerOpen;
    const shownChanged = publisher.shows(key) !== isEngaged(after, nowMs, settings);
    publisher.observed(key, logged || breaker || shownChanged);
  };

  /** `key`'s limit as operators see it, if it holds calls back at `nowMs`. */
  const learnedOf = (
    key: string,
    limit: AdaptiveLimit,
    nowMs: number,
  ): LearnedLimit | undefined => {
    const settings = settingsFor(key);
    if (!isEngaged(limit, nowMs, settings)) return undefined;
    const allowed = allowance(limit, nowMs, settings);
    return {
      key,
      callsPerSecond: allowed.callsPerSecond,
      ceilingPerSecond: settings.maxCallsPerSecond,
      maxConcurrentCalls: allowed.maxConcurrentCalls,
      reason: limit.reason,
      changedAtMs: limit.changedAtMs,
    };
  };

  const engaged = (): readonly LearnedLimit[] => {
    const nowMs = clock();
    return [...targets].flatMap(([key, { limit }]) => learnedOf(key, limit, nowMs) ?? []);
  };

  const publisher: LearnedLimitPublisher | undefined =
    deps.publish === undefined
      ? undefined
      : createLearnedLimitPublisher({
          ...deps.publish,
          clock,
          log,
          maxTargets,
          current: (key) => {
            const target = targets.get(key);
            const learned = target && learnedOf(key, target.limit, clock());
            if (learned === undefined) return undefined;
            const { key: _key, ...entry } = learned;
            return entry;
          },
        });

  return { admit, observe, engaged };
};

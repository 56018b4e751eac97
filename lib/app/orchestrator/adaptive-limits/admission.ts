import { isEngaged } from "../../../core/adaptive-engagement.js";
import {
  type AdaptiveLimitSettings,
  type Allowance,
  allowance,
} from "../../../core/adaptive-limit.js";
import { tokensVerdict } from "../../../core/call-tokens.js";
import { type LimitVerdict, rateVerdict, slotRetryAt } from "../../../core/target-limits.js";
import { type LimitAdmission, LimitKind } from "../target-limits.js";
import {
  type AdaptiveContext,
  askedNow,
  type LearnedTarget,
  permitFor,
  touch,
} from "./learned-targets.js";

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

/**
 * The rate's verdict: within the aligned second's count, which orders and spreads the turned-away
 * as the shared counter does, and within a bucket of one second's tokens, so that two seconds'
 * calls never go in one (../../../core/call-tokens.ts).
 */
const rateVerdictFor = (target: LearnedTarget, nowMs: number, perSecond: number): LimitVerdict => {
  const aligned = rateVerdict(target.windowStartMs, askedNow(target, nowMs), perSecond);
  if (aligned.verdict === "defer") return aligned;
  const bucket = tokensVerdict(target.limit.tokens, nowMs, perSecond);
  target.limit = { ...target.limit, tokens: bucket.tokens };
  return bucket.verdict;
};

/** Whether a call to `key` may start now, as far as its learned limit goes. */
export const admitAdaptive = (context: AdaptiveContext, key: string): LimitAdmission => {
  const settings = context.settingsFor(key);
  const nowMs = context.clock();
  const target = touch(context, key, nowMs, settings);
  // Counted in flight even when not held back: the first overload learns from how many were out.
  if (!isEngaged(target.limit, nowMs, settings))
    return { verdict: "call", permit: permitFor(context, target) };
  const allowed = allowance(target.limit, nowMs, settings);
  if (allowed.notBeforeMs !== undefined)
    return { verdict: "defer", untilMs: allowed.notBeforeMs, limit: LimitKind.RATE };
  const perSecond = Math.max(1, Math.floor(allowed.callsPerSecond));
  if (target.inFlight >= concurrencyOf(allowed, target, perSecond, settings))
    return {
      verdict: "defer",
      untilMs: slotRetryAt(nowMs, context.random),
      limit: LimitKind.CONCURRENCY,
    };
  const verdict = rateVerdictFor(target, nowMs, perSecond);
  if (verdict.verdict === "defer")
    return { verdict: "defer", untilMs: verdict.untilMs, limit: LimitKind.RATE };
  return { verdict: "call", permit: permitFor(context, target) };
};

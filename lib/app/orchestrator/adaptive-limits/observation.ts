import { isEngaged, limitLowered, noiseVerdictOf } from "../../../core/adaptive-engagement.js";
import { type AdaptiveLimit, type LimitObservation, next } from "../../../core/adaptive-limit.js";
import { type LearnedLimitEntry, othersOf } from "../../../core/learned-limits.js";
import { type AdaptiveContext, touch } from "./learned-targets.js";

/**
 * Logs a target's 429s starting or ceasing to be read as noise (they no longer cut its rate, or
 * do again): the one change in how a target is treated that no cut or pause shows.
 */
const tellNoise = (
  context: Pick<AdaptiveContext, "log">,
  key: string,
  before: AdaptiveLimit,
  after: AdaptiveLimit,
): void => {
  const verdict = noiseVerdictOf(before, after);
  if (verdict === undefined) return;
  if (verdict.kind === "forgotten")
    context.log.info("target 429s no longer read as noise", { target: key });
  else
    context.log.info("target 429s read as noise", {
      target: key,
      refusedShare: Math.round(verdict.refusedShare * 1_000) / 1_000,
    });
};

/**
 * Tells `key`'s limit what the other instances holding it back last wrote (their entries, as a
 * write of this instance's own returned them). A target forgotten since is left forgotten.
 */
export const hearOthers = (
  context: Pick<AdaptiveContext, "targets" | "clock" | "settingsFor" | "log">,
  key: string,
  entries: readonly LearnedLimitEntry[],
): void => {
  const target = context.targets.get(key);
  if (target === undefined) return;
  const nowMs = context.clock();
  const others = othersOf(entries, nowMs);
  const before = target.limit;
  target.limit = next(before, { kind: "others", others }, nowMs, context.settingsFor(key));
  tellNoise(context, key, before, target.limit);
};

/** Teaches `key`'s limit what a call said, or that its breaker changed state. */
export const observe = (
  context: AdaptiveContext,
  key: string,
  observation: LimitObservation,
): void => {
  const { publisher } = context;
  const settings = context.settingsFor(key);
  const nowMs = context.clock();
  const target = touch(context, key, nowMs, settings);
  const before = target.limit;
  // The gate tells a call's end after giving back its permit: the calls still out, and this one.
  const seen =
    observation.kind === "call" && observation.inFlight === undefined
      ? { ...observation, inFlight: target.inFlight + 1 }
      : observation;
  const after = next(before, seen, nowMs, settings);
  target.limit = after;
  tellNoise(context, key, before, after);
  const logged = limitLowered(before, after);
  if (logged)
    context.log.info("target limit lowered", {
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

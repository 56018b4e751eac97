import { isEngaged, limitLowered } from "../../../core/adaptive-engagement.js";
import { type LimitObservation, next } from "../../../core/adaptive-limit.js";
import { type AdaptiveContext, touch } from "./learned-targets.js";

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

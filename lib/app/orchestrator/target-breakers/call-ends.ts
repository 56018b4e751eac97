import {
  type CachedBreaker,
  callHeld,
  failuresDue,
  failuresTaken,
} from "../../../core/breaker-cache.js";
import {
  type BreakerSettings,
  BreakerState,
  opened,
  recordCall,
  trips,
  windowStartOf,
} from "../../../core/circuit-breaker.js";
import { pendingCount } from "../../../core/pending-deferrals.js";
import type { StoredBreaker } from "../../../core/ports.js";
import { targetErrorExcerpt } from "../../../core/target-view.js";
import { adopt, type BreakersContext, failOpen, replace, viewOf, wrote } from "./breaker-writes.js";

/** How an admitted call ended, as the orchestrator tells it (`TargetBreakers.recordCall`). */
export interface CallEnd {
  readonly key: string;
  /** Retryable or uncertain. */
  readonly failed: boolean;
  /** The verdict the call was admitted with. */
  readonly as: "call" | "probe";
  /** The outcome's message, already redacted. */
  readonly error?: string | undefined;
}

/** A call's end as the breaker counts it: when, by which settings, with which error excerpt. */
interface CountedEnd {
  readonly key: string;
  readonly failed: boolean;
  readonly lastError: string | undefined;
  readonly nowMs: number;
  readonly settings: BreakerSettings;
}

/** Writes the calls held for `key` (taken out first) and returns the breaker the write left. */
const writeHeldCalls = async (
  context: BreakersContext,
  key: string,
  nowMs: number,
  settings: BreakerSettings,
): Promise<StoredBreaker> => {
  const entry = viewOf(context, key);
  const { successes, failures, lastError } = entry;
  // Taken out before the write: a failure ending while it is in flight is held for the next.
  context.views.set(key, failuresTaken(entry, nowMs));
  const windowStartMs = windowStartOf(nowMs, settings);
  const deferred = pendingCount(context.deferrals.get(key));
  const counted = await context.store.countFailure({
    key,
    successes,
    failures,
    windowStartMs,
    nowMs,
    deferred,
    lastError,
  });
  wrote(context, key, deferred, nowMs);
  adopt(context, counted, false);
  return counted;
};

/** Writes the held failures (with the successes seen since); opens the breaker if they trip it. */
const countFailures = async (context: BreakersContext, key: string, nowMs: number) => {
  const settings = context.settingsOf(key);
  const counted = await writeHeldCalls(context, key, nowMs, settings);
  const { breaker } = counted;
  if (breaker.state !== BreakerState.CLOSED) return;
  if (!trips(breaker.calls, breaker.failures, settings)) {
    // Failures held while this write was in flight may trip what it returned.
    const now = viewOf(context, key);
    if (now.failures > 0 && failuresDue(now, nowMs, settings)) {
      await countFailures(context, key, nowMs);
    }
    return;
  }
  const change = {
    key,
    version: counted.version,
    breaker: opened(breaker, nowMs, settings),
    nowMs,
  };
  const result = await replace(context, change);
  if (result.kind === "replaced") {
    context.log.warn("target breaker opened", {
      target: key,
      calls: breaker.calls,
      failures: breaker.failures,
      reopenAt: new Date(result.stored.breaker.reopenAtMs ?? nowMs).toISOString(),
    });
  }
};

/** A probe's answer closes or reopens the breaker for everyone, unless another probe's did first. */
const answerProbe = async (context: BreakersContext, entry: CachedBreaker, end: CountedEnd) => {
  const { key, failed, nowMs, lastError } = end;
  const { breaker, version } = entry.stored;
  if (breaker.state !== BreakerState.HALF_OPEN) return;
  const next = recordCall(breaker, failed, nowMs, end.settings);
  const result = await replace(context, { key, version, breaker: next, nowMs, lastError });
  if (result.kind === "replaced") {
    context.log.warn(failed ? "target breaker reopened" : "target breaker closed", { target: key });
  }
};

/** A call admitted while closed is held for the next write; a failure writes when one is due. */
const holdCall = async (context: BreakersContext, entry: CachedBreaker, end: CountedEnd) => {
  // A call admitted while closed that ends after the breaker moved on changes nothing.
  if (entry.stored.breaker.state !== BreakerState.CLOSED) return;
  const held = callHeld(entry, end.failed, end.lastError);
  context.views.set(end.key, held);
  if (end.failed && failuresDue(held, end.nowMs, end.settings)) {
    await countFailures(context, end.key, end.nowMs);
  }
};

/** Tells the breaker how an admitted call ended. */
export const recordCallEnd = async (context: BreakersContext, call: CallEnd): Promise<void> => {
  const { key, failed, error } = call;
  const settings = context.settingsOf(key);
  const nowMs = context.clock();
  const entry = viewOf(context, key);
  const lastError = failed && error !== undefined ? targetErrorExcerpt(error) : undefined;
  const end: CountedEnd = { key, failed, lastError, nowMs, settings };
  try {
    await (call.as === "probe" ? answerProbe(context, entry, end) : holdCall(context, entry, end));
  } catch (error) {
    failOpen(context, key, "recordCall", error);
  }
};

/** Gives back a probe that made no call, so another may. */
export const abandonProbe = async (context: BreakersContext, key: string): Promise<void> => {
  const { stored } = viewOf(context, key);
  const { breaker } = stored;
  if (breaker.state !== BreakerState.HALF_OPEN || breaker.probesInFlight === 0) return;
  const probesInFlight = breaker.probesInFlight - 1;
  const change = { key, version: stored.version, breaker: { ...breaker, probesInFlight } };
  try {
    await replace(context, { ...change, nowMs: context.clock() });
  } catch (error) {
    failOpen(context, key, "abandonProbe", error);
  }
};

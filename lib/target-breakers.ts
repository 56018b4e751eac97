import {
  admit,
  type BreakerSettings,
  BreakerState,
  closedBreaker,
  type DeferralQueue,
  nextRelease,
  opened,
  recordCall,
  trips,
} from "./core/circuit-breaker.js";
import type { StoredBreaker, TargetStateStore } from "./core/ports.js";
import type { Clock } from "./core/random.js";
import type { Log } from "./observability.js";

/** What the orchestrator may do with a call to a target now. */
export type TargetAdmission =
  | { readonly verdict: "call" }
  /** A half-open breaker's probe: its result closes or reopens the breaker for everyone. */
  | { readonly verdict: "probe" }
  /** The breaker is open: defer the event to `untilMs` without spending an attempt. */
  | { readonly verdict: "defer"; readonly untilMs: number };

/** The per-instance face of the targets' shared breakers. */
export interface TargetBreakers {
  admit(key: string): Promise<TargetAdmission>;
  /**
   * Tells the breaker how an admitted call ended (`failed`: retryable or uncertain); `as` is the
   * verdict it was admitted with.
   */
  recordCall(key: string, failed: boolean, as: "call" | "probe"): Promise<void>;
  /** Gives back a probe that made no call (the event was a duplicate, say), so another may. */
  abandonProbe(key: string): Promise<void>;
}

export interface TargetBreakersDeps {
  readonly store: TargetStateStore;
  readonly settings: BreakerSettings;
  /** A target's own settings, when they differ from `settings` (per-key overrides). */
  readonly settingsFor?: ((key: string) => BreakerSettings) | undefined;
  readonly clock: Clock;
  readonly log: Log;
}

interface CachedBreaker {
  readonly stored: StoredBreaker;
  /** Successful calls since this instance last wrote, sent with its next failure. */
  readonly successes: number;
}

/**
 * Breakers shared through `store`, read through a per-instance cache, so that a closed breaker's
 * successful call costs no I/O at all. An instance learns the shared state when it writes: with
 * each failure it counts (the write returns the item), and with each state change it attempts
 * (a lost race returns the winner's item). So every instance sees a breaker open at its own
 * first failure after it opened, and one probe at a time is let through across all of them.
 *
 * A failing store never stops deliveries: the breaker then fails open (calls are made), with a
 * warning, since the attempt store on the same table decides whether anything can run at all.
 */
export const createTargetBreakers = (deps: TargetBreakersDeps): TargetBreakers => {
  const { store, clock, log } = deps;
  const settingsOf = deps.settingsFor ?? (() => deps.settings);
  const cache = new Map<string, CachedBreaker>();
  const releases = new Map<string, DeferralQueue>();

  const cached = (key: string): CachedBreaker =>
    cache.get(key) ?? {
      stored: { key, breaker: closedBreaker(clock()), version: 0 },
      successes: 0,
    };
  const adopt = (stored: StoredBreaker, successes = cached(stored.key).successes): void => {
    cache.set(stored.key, { stored, successes });
  };
  const failOpen = (key: string, operation: string, error: unknown): void => {
    log.warn("target breaker store failed; calling as if the breaker were closed", {
      target: key,
      operation,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  };

  const admitCall = async (key: string): Promise<TargetAdmission> => {
    const settings = settingsOf(key);
    const nowMs = clock();
    const { stored } = cached(key);
    const admission = admit(stored.breaker, nowMs, settings);
    if (admission.verdict === "defer") {
      if (stored.breaker.state !== BreakerState.OPEN)
        return { verdict: "defer", untilMs: admission.untilMs };
      const release = nextRelease(releases.get(key), admission.untilMs, settings);
      releases.set(key, release.queue);
      return { verdict: "defer", untilMs: release.dueMs };
    }
    if (admission.verdict === "call") return { verdict: "call" };
    // A probe changes the shared state: only the instance whose write lands makes it.
    try {
      const result = await store.replace(key, stored.version, admission.breaker);
      adopt(result.stored);
      if (result.kind === "replaced") return { verdict: "probe" };
      const now = admit(result.stored.breaker, nowMs, settings);
      if (now.verdict === "call") return { verdict: "call" };
      return {
        verdict: "defer",
        untilMs: now.verdict === "defer" ? now.untilMs : nowMs + settings.probeWaitMs,
      };
    } catch (error) {
      failOpen(key, "probe", error);
      return { verdict: "call" };
    }
  };

  const countFailure = async (key: string, nowMs: number): Promise<void> => {
    const settings = settingsOf(key);
    const { successes } = cached(key);
    const windowStartMs = Math.floor(nowMs / settings.windowMs) * settings.windowMs;
    const counted = await store.countFailure({ key, successes, windowStartMs, nowMs });
    adopt(counted, 0);
    const { breaker } = counted;
    if (breaker.state !== BreakerState.CLOSED || !trips(breaker.calls, breaker.failures, settings))
      return;
    const result = await store.replace(key, counted.version, opened(breaker, nowMs, settings));
    adopt(result.stored, 0);
    if (result.kind === "replaced") {
      log.warn("target breaker opened", {
        target: key,
        calls: breaker.calls,
        failures: breaker.failures,
        reopenAt: new Date(result.stored.breaker.reopenAtMs ?? nowMs).toISOString(),
      });
    }
  };

  const recordCallEnd = async (
    key: string,
    failed: boolean,
    as: "call" | "probe",
  ): Promise<void> => {
    const settings = settingsOf(key);
    const nowMs = clock();
    const entry = cached(key);
    const { breaker } = entry.stored;
    try {
      if (as === "probe") {
        // Another instance's probe may have decided first; then this one changes nothing.
        if (breaker.state !== BreakerState.HALF_OPEN) return;
        const next = recordCall(breaker, failed, nowMs, settings);
        const result = await store.replace(key, entry.stored.version, next);
        adopt(result.stored, 0);
        if (result.kind === "replaced") {
          log.warn(failed ? "target breaker reopened" : "target breaker closed", { target: key });
        }
        return;
      }
      // A call admitted while closed that ends after the breaker moved on changes nothing.
      if (breaker.state !== BreakerState.CLOSED) return;
      if (!failed) {
        cache.set(key, { ...entry, successes: entry.successes + 1 });
        return;
      }
      await countFailure(key, nowMs);
    } catch (error) {
      failOpen(key, "recordCall", error);
    }
  };

  const abandonProbe = async (key: string): Promise<void> => {
    const { stored } = cached(key);
    const { breaker } = stored;
    if (breaker.state !== BreakerState.HALF_OPEN || breaker.probesInFlight === 0) return;
    try {
      const result = await store.replace(key, stored.version, {
        ...breaker,
        probesInFlight: breaker.probesInFlight - 1,
      });
      adopt(result.stored);
    } catch (error) {
      failOpen(key, "abandonProbe", error);
    }
  };

  return { admit: admitCall, recordCall: recordCallEnd, abandonProbe };
};

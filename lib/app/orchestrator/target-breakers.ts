import {
  admit,
  type Breaker,
  type BreakerSettings,
  BreakerState,
  closedBreaker,
  type DeferralQueue,
  nextRelease,
  opened,
  recordCall,
  trips,
  windowStartOf,
} from "../../core/circuit-breaker.js";
import { errorWithName } from "../../core/errors.js";
import type { Log } from "../../core/observability.js";
import type { StoredBreaker, TargetStateStore, TargetWriteExtras } from "../../core/ports.js";
import type { Clock } from "../../core/random.js";
import { type CallEvidence, callEvidence, type EndedCall } from "../../core/target-health.js";
import { outageStartMs, targetErrorExcerpt } from "../../core/target-view.js";

/** What the orchestrator may do with a call to a target now. */
export type TargetAdmission =
  | { readonly verdict: "call" }
  /** A half-open breaker's probe: its result closes or reopens the breaker for everyone. */
  | { readonly verdict: "probe" }
  /**
   * Not now: defer the event to `untilMs` without spending an attempt. `outageStartMs`, when an
   * open breaker is the reason, is when it opened from closed, for the "open too long" alarm.
   */
  | {
      readonly verdict: "defer";
      readonly untilMs: number;
      readonly outageStartMs?: number | undefined;
    };

/** The per-instance face of the targets' shared breakers. */
export interface TargetBreakers {
  admit(key: string): Promise<TargetAdmission>;
  /**
   * Tells the breaker how an admitted call ended (`failed`: retryable or uncertain); `as` is the
   * verdict it was admitted with. `error` (the outcome's message, already redacted) becomes the
   * target's last error when the failure is written.
   */
  recordCall(key: string, failed: boolean, as: "call" | "probe", error?: string): Promise<void>;
  /** Gives back a probe that made no call (the event was a duplicate, say), so another may. */
  abandonProbe(key: string): Promise<void>;
  /**
   * What a call says about the target, by the target's own settings: only a failing or healthy
   * call is told to {@link recordCall}; a silent one is not counted at all (target-health.ts).
   */
  evidenceOf(key: string, call: EndedCall): CallEvidence;
}

export interface TargetBreakersDeps {
  readonly store: TargetStateStore;
  readonly settings: BreakerSettings;
  /** A target's own settings, when they differ from `settings` (per-key overrides). */
  readonly settingsFor?: ((key: string) => BreakerSettings) | undefined;
  readonly clock: Clock;
  readonly log: Log;
}

/**
 * Deferrals are counted in memory and written with the item's next write, or on their own at
 * most this often per instance and target: an open breaker may turn away thousands of events a
 * second, and each of them must not cost a write.
 */
export const DEFERRAL_FLUSH_MS = 5_000;

/** Deferrals of one target this instance has not written yet. */
interface PendingDeferrals {
  readonly count: number;
  /** When this instance last wrote the target's item (or first deferred to it). */
  readonly writtenAtMs: number;
}

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

interface CachedBreaker {
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

/**
 * Breakers shared through `store`, read through a per-instance cache, so that a closed breaker's
 * successful call costs no I/O at all. An instance learns the shared state when it writes: with
 * each write of its failures (at most one per {@link FAILURE_FLUSH_MS}; the write returns the
 * item), and with each state change it attempts (a lost race returns the winner's item). So
 * every instance sees a breaker open at its first failure write after it opened — within
 * `FAILURE_FLUSH_MS` of a failure — and one probe at a time is let through across all of them.
 *
 * A failing store never stops deliveries: the breaker then fails open (calls are made), with a
 * warning, since the attempt store on the same table decides whether anything can run at all.
 */
export const createTargetBreakers = (deps: TargetBreakersDeps): TargetBreakers => {
  const { store, clock, log } = deps;
  const settingsOf = deps.settingsFor ?? (() => deps.settings);
  const cache = new Map<string, CachedBreaker>();
  const releases = new Map<string, DeferralQueue>();
  const deferrals = new Map<string, PendingDeferrals>();

  /** A view that starts counting now: its first failures wait for a second of calls. */
  const counting = (stored: StoredBreaker): CachedBreaker => ({
    stored,
    successes: 0,
    failures: 0,
    failuresWrittenAtMs: clock(),
    written: false,
  });
  const cached = (key: string): CachedBreaker =>
    cache.get(key) ?? counting({ key, breaker: closedBreaker(clock()), version: 0 });
  /**
   * Takes the stored breaker as this instance's view; `restart`: drop the counts it held. Answers
   * to concurrent writes come back in any order, so one older than the view is ignored: a lost
   * race's answer, read before the winner's opening, must not close the breaker again here.
   */
  const adopt = (stored: StoredBreaker, restart: boolean): void => {
    const entry = cached(stored.key);
    if (stored.version < entry.stored.version) return;
    cache.set(stored.key, restart ? counting(stored) : { ...entry, stored });
  };
  /** The deferrals a write of the target's item takes along (see {@link wrote}). */
  const pendingOf = (key: string): number => deferrals.get(key)?.count ?? 0;
  /** A write of the item landed with `sent` deferrals: they are counted now. */
  const wrote = (key: string, sent: number, nowMs: number): void => {
    const count = pendingOf(key) - sent;
    if (count > 0 || deferrals.has(key)) deferrals.set(key, { count, writtenAtMs: nowMs });
  };

  /** Counts a deferral; writes the count on its own only if nothing wrote it for a while. */
  const countDeferral = async (key: string, nowMs: number): Promise<void> => {
    const pending = deferrals.get(key);
    const count = (pending?.count ?? 0) + 1;
    // The first deferral an instance makes is written at once, so an outage shows up promptly.
    if (pending !== undefined && nowMs - pending.writtenAtMs < DEFERRAL_FLUSH_MS) {
      deferrals.set(key, { count, writtenAtMs: pending.writtenAtMs });
      return;
    }
    deferrals.set(key, { count, writtenAtMs: nowMs });
    try {
      await store.addDeferrals(key, count, nowMs);
      wrote(key, count, nowMs);
    } catch (error) {
      failOpen(key, "addDeferrals", error);
    }
  };

  const failOpen = (key: string, operation: string, error: unknown): void => {
    log.warn("target breaker store failed; calling as if the breaker were closed", {
      target: key,
      operation,
      error: errorWithName(error),
    });
  };

  /** Every deferral joins the target's release line, so none comes back faster than the rate. */
  const deferTo = (
    key: string,
    untilMs: number,
    settings: BreakerSettings,
    since: number | undefined,
  ): TargetAdmission => {
    const release = nextRelease(releases.get(key), untilMs, settings);
    releases.set(key, release.queue);
    return { verdict: "defer", untilMs: release.dueMs, outageStartMs: since };
  };

  const admitCall = async (key: string): Promise<TargetAdmission> => {
    const settings = settingsOf(key);
    const nowMs = clock();
    const { stored } = cached(key);
    const admission = admit(stored.breaker, nowMs, settings);
    if (admission.verdict === "defer") {
      await countDeferral(key, nowMs);
      const since = outageStartMs(stored.breaker, stored.notes);
      return deferTo(key, admission.untilMs, settings, since);
    }
    if (admission.verdict === "call") return { verdict: "call" };
    // A probe changes the shared state: only the instance whose write lands makes it.
    try {
      const result = await replace(key, stored.version, admission.breaker, nowMs);
      if (result.kind === "replaced") return { verdict: "probe" };
      const now = admit(result.stored.breaker, nowMs, settings);
      if (now.verdict === "call") return { verdict: "call" };
      await countDeferral(key, nowMs);
      const untilMs = now.verdict === "defer" ? now.untilMs : nowMs + settings.probeWaitMs;
      return deferTo(
        key,
        untilMs,
        settings,
        outageStartMs(result.stored.breaker, result.stored.notes),
      );
    } catch (error) {
      failOpen(key, "probe", error);
      return { verdict: "call" };
    }
  };

  /** A version-guarded state change, taking this instance's deferrals along; adopts the result. */
  const replace = async (
    key: string,
    version: number,
    breaker: Breaker,
    nowMs: number,
    extras: Pick<TargetWriteExtras, "lastError"> = {},
  ) => {
    const deferred = pendingOf(key);
    const result = await store.replace({ key, version, breaker, nowMs, deferred, ...extras });
    if (result.kind === "replaced") wrote(key, deferred, nowMs);
    // A state change starts counting afresh: what was held belongs to the state it ended.
    adopt(result.stored, result.kind === "replaced");
    return result;
  };

  /** Whether the failures held for a target are written now or kept for a later write. */
  const failuresDue = (entry: CachedBreaker, nowMs: number, settings: BreakerSettings): boolean => {
    if (nowMs - entry.failuresWrittenAtMs >= FAILURE_FLUSH_MS) return true;
    if (!entry.written) return false;
    const { breaker } = entry.stored;
    const current = nowMs - breaker.windowStartMs < settings.windowMs;
    const calls = (current ? breaker.calls : 0) + entry.successes + entry.failures;
    const failures = (current ? breaker.failures : 0) + entry.failures;
    return trips(calls, failures, settings);
  };

  /** Writes the held failures (with the successes seen since); opens the breaker if they trip it. */
  const countFailures = async (key: string, nowMs: number): Promise<void> => {
    const settings = settingsOf(key);
    const entry = cached(key);
    const { successes, failures, lastError } = entry;
    // Taken out before the write: a failure ending while it is in flight is held for the next.
    cache.set(key, {
      ...entry,
      successes: 0,
      failures: 0,
      lastError: undefined,
      failuresWrittenAtMs: nowMs,
      written: true,
    });
    const windowStartMs = windowStartOf(nowMs, settings);
    const deferred = pendingOf(key);
    const counted = await store.countFailure({
      key,
      successes,
      failures,
      windowStartMs,
      nowMs,
      deferred,
      lastError,
    });
    wrote(key, deferred, nowMs);
    adopt(counted, false);
    const { breaker } = counted;
    if (breaker.state !== BreakerState.CLOSED) return;
    if (!trips(breaker.calls, breaker.failures, settings)) {
      // Failures held while this write was in flight may trip what it returned.
      const now = cached(key);
      if (now.failures > 0 && failuresDue(now, nowMs, settings)) await countFailures(key, nowMs);
      return;
    }
    const result = await replace(key, counted.version, opened(breaker, nowMs, settings), nowMs);
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
    error?: string,
  ): Promise<void> => {
    const settings = settingsOf(key);
    const nowMs = clock();
    const entry = cached(key);
    const lastError = failed && error !== undefined ? targetErrorExcerpt(error) : undefined;
    const { breaker } = entry.stored;
    try {
      if (as === "probe") {
        // Another instance's probe may have decided first; then this one changes nothing.
        if (breaker.state !== BreakerState.HALF_OPEN) return;
        const next = recordCall(breaker, failed, nowMs, settings);
        const result = await replace(key, entry.stored.version, next, nowMs, { lastError });
        if (result.kind === "replaced") {
          log.warn(failed ? "target breaker reopened" : "target breaker closed", { target: key });
        }
        return;
      }
      // A call admitted while closed that ends after the breaker moved on changes nothing.
      if (breaker.state !== BreakerState.CLOSED) return;
      const held: CachedBreaker = failed
        ? { ...entry, failures: entry.failures + 1, lastError: lastError ?? entry.lastError }
        : { ...entry, successes: entry.successes + 1 };
      cache.set(key, held);
      if (failed && failuresDue(held, nowMs, settings)) await countFailures(key, nowMs);
    } catch (error) {
      failOpen(key, "recordCall", error);
    }
  };

  const abandonProbe = async (key: string): Promise<void> => {
    const { stored } = cached(key);
    const { breaker } = stored;
    if (breaker.state !== BreakerState.HALF_OPEN || breaker.probesInFlight === 0) return;
    try {
      await replace(
        key,
        stored.version,
        { ...breaker, probesInFlight: breaker.probesInFlight - 1 },
        clock(),
      );
    } catch (error) {
      failOpen(key, "abandonProbe", error);
    }
  };

  return {
    admit: admitCall,
    recordCall: recordCallEnd,
    abandonProbe,
    evidenceOf: (key, call) => callEvidence(call, settingsOf(key).minCountedTimeoutMs),
  };
};

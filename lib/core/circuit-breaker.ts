import * as z from "zod";
import { MAX_TIMEOUT_MS } from "./envelope.js";

/*
 * A circuit breaker per target, as pure functions over a value: the orchestrator asks `admit`
 * before a call and tells `recordCall` after it; the clock is passed in. Where the state lives
 * (a per-instance cache, a shared DynamoDB item) is the adapter's business, not this module's.
 *
 * closed ──failure rate ≥ threshold over ≥ minimumCalls in the window──▶ open
 * open ──reopen time reached──▶ half-open (up to `halfOpenProbes` calls let through)
 * half-open ──a probe succeeds──▶ closed;  ──a probe fails──▶ open again, for twice as long
 */

/** The three states of a breaker. */
export const BreakerState = {
  CLOSED: "closed",
  OPEN: "open",
  HALF_OPEN: "half_open",
} as const;
export type BreakerState = (typeof BreakerState)[keyof typeof BreakerState];

/** How a breaker trips and recovers. */
export interface BreakerSettings {
  /** Share of failed calls (0–1, exclusive of 0) at or above which the breaker opens. */
  readonly failureRateThreshold: number;
  /** Calls the window must hold before its failure rate counts: a few failures prove nothing. */
  readonly minimumCalls: number;
  /** How long counts are kept: a window older than this starts over. */
  readonly windowMs: number;
  /** How long the breaker stays open the first time. */
  readonly openMs: number;
  /** Longest it stays open, however often it reopens (each reopening doubles the time). */
  readonly maxOpenMs: number;
  /** Calls let through at once while half-open. */
  readonly halfOpenProbes: number;
  /** How long a call turned away while the probes run waits before it asks again. */
  readonly probeWaitMs: number;
  /**
   * How long a probe may stay unanswered before it is taken for lost (its instance stopped) and
   * another is let through: longer than the longest call.
   */
  readonly probeTimeoutMs: number;
  /**
   * Deferred calls one instance releases per second once the breaker may let calls through
   * again: the n-th event it defers to one reopen time is due n / rate seconds after it, so a
   * recovered target is not hit by its whole backlog at once.
   */
  readonly releasePerSecond: number;
  /**
   * A call's timeout counts against its target only when the call was given at least this long:
   * a producer's short timeout to a partner that takes longer is the producer's choice, and must
   * not open the partner's breaker for every other producer (lib/core/target-health.ts).
   */
  readonly minCountedTimeoutMs: number;
}

/** The defaults: Convoy's and resilience4j's orders of magnitude, for webhook partners. */
export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = {
  failureRateThreshold: 0.5,
  minimumCalls: 10,
  windowMs: 60_000,
  openMs: 30_000,
  maxOpenMs: 10 * 60_000,
  halfOpenProbes: 1,
  probeWaitMs: 5_000,
  probeTimeoutMs: 310_000,
  releasePerSecond: 10,
  minCountedTimeoutMs: 1_000,
};

/** A deployment's overrides of {@link DEFAULT_BREAKER_SETTINGS}, as configuration carries them. */
export const BreakerSettingsSchema = z.strictObject({
  failureRateThreshold: z.number().gt(0).max(1).optional(),
  minimumCalls: z.int().min(1).max(10_000).optional(),
  windowMs: z.int().min(1_000).max(3_600_000).optional(),
  openMs: z.int().min(1_000).max(3_600_000).optional(),
  maxOpenMs: z
    .int()
    .min(1_000)
    .max(24 * 3_600_000)
    .optional(),
  halfOpenProbes: z.int().min(1).max(100).optional(),
  probeWaitMs: z.int().min(100).max(3_600_000).optional(),
  probeTimeoutMs: z.int().min(1_000).max(3_600_000).optional(),
  releasePerSecond: z.number().gt(0).max(10_000).optional(),
  minCountedTimeoutMs: z.int().min(0).max(MAX_TIMEOUT_MS).optional(),
});

/** One target's breaker. */
export interface Breaker {
  readonly state: BreakerState;
  /** Start of the current counting window (closed). */
  readonly windowStartMs: number;
  readonly calls: number;
  readonly failures: number;
  /** Times opened since it was last closed: the open time doubles with each. */
  readonly openings: number;
  /** When open: when it turns half-open. */
  readonly reopenAtMs?: number | undefined;
  /** When half-open: probes let through and not yet answered. */
  readonly probesInFlight: number;
  /** When it last changed state, for operators. */
  readonly changedAtMs: number;
}

/** A breaker that has never seen a call. */
export const closedBreaker = (nowMs: number): Breaker => ({
  state: BreakerState.CLOSED,
  windowStartMs: nowMs,
  calls: 0,
  failures: 0,
  openings: 0,
  probesInFlight: 0,
  changedAtMs: nowMs,
});

/** What to do with a call, and the breaker after deciding it. */
export type Admission =
  | { readonly verdict: "call"; readonly breaker: Breaker }
  /** Let through as a half-open probe: its result decides whether the breaker closes. */
  | { readonly verdict: "probe"; readonly breaker: Breaker }
  /** Not now: try again at `untilMs`; no attempt is spent. */
  | { readonly verdict: "defer"; readonly untilMs: number; readonly breaker: Breaker };

const openFor = (settings: BreakerSettings, openings: number): number =>
  Math.min(settings.maxOpenMs, settings.openMs * 2 ** Math.max(0, openings - 1));

/** The start of the aligned counting window `nowMs` falls in, the same on every instance. */
export const windowStartOf = (nowMs: number, settings: Pick<BreakerSettings, "windowMs">): number =>
  Math.floor(nowMs / settings.windowMs) * settings.windowMs;

/** Whether a window's counts trip the breaker. */
export const trips = (calls: number, failures: number, settings: BreakerSettings): boolean =>
  calls >= settings.minimumCalls && failures / calls >= settings.failureRateThreshold;

/** The breaker opened now, for a time that doubles with each opening since it last closed. */
export const opened = (breaker: Breaker, nowMs: number, settings: BreakerSettings): Breaker => {
  const openings = breaker.openings + 1;
  return {
    ...breaker,
    state: BreakerState.OPEN,
    openings,
    reopenAtMs: nowMs + openFor(settings, openings),
    probesInFlight: 0,
    changedAtMs: nowMs,
  };
};

/** Whether a call may be made now. */
export const admit = (breaker: Breaker, nowMs: number, settings: BreakerSettings): Admission => {
  switch (breaker.state) {
    case BreakerState.CLOSED:
      return { verdict: "call", breaker };
    case BreakerState.OPEN: {
      const reopenAtMs = breaker.reopenAtMs ?? nowMs;
      if (nowMs < reopenAtMs) return { verdict: "defer", untilMs: reopenAtMs, breaker };
      const halfOpen: Breaker = {
        ...breaker,
        state: BreakerState.HALF_OPEN,
        reopenAtMs: undefined,
        probesInFlight: 1,
        changedAtMs: nowMs,
      };
      return { verdict: "probe", breaker: halfOpen };
    }
    case BreakerState.HALF_OPEN: {
      // Probes never answered (their instance stopped) would hold the breaker half-open forever.
      const lost = nowMs - breaker.changedAtMs >= settings.probeTimeoutMs;
      const out = lost ? 0 : breaker.probesInFlight;
      if (out < settings.halfOpenProbes) {
        return {
          verdict: "probe",
          breaker: { ...breaker, probesInFlight: out + 1, ...(lost ? { changedAtMs: nowMs } : {}) },
        };
      }
      return { verdict: "defer", untilMs: nowMs + settings.probeWaitMs, breaker };
    }
  }
};

/** When the last event one instance deferred to a target is due back. */
export interface DeferralQueue {
  readonly lastDueMs: number;
}

/**
 * When the next deferred event is due: at `untilMs` (the reopen time, or the end of a probe's
 * wait), but never sooner than `1000 / releasePerSecond` ms after the one deferred before it.
 * Events turned away at different moments — while half-open, or re-deferred as they come back
 * to a breaker that opened again — join the same line, so a target sees them at the release
 * rate however they arrived; a line already past is forgotten.
 */
export const nextRelease = (
  queue: DeferralQueue | undefined,
  untilMs: number,
  settings: BreakerSettings,
): { readonly dueMs: number; readonly queue: DeferralQueue } => {
  const spacingMs = 1000 / settings.releasePerSecond;
  const dueMs =
    queue === undefined ? untilMs : Math.max(untilMs, Math.ceil(queue.lastDueMs + spacingMs));
  return { dueMs, queue: { lastDueMs: dueMs } };
};

/**
 * The breaker after a call ended. `failed` is true for a call whose evidence is failing
 * (target-health.ts); a refusal of the event (4xx) shows the target up and counts as a success,
 * and a call that says nothing about the target is never recorded at all.
 */
export const recordCall = (
  breaker: Breaker,
  failed: boolean,
  nowMs: number,
  settings: BreakerSettings,
): Breaker => {
  switch (breaker.state) {
    case BreakerState.HALF_OPEN:
      return failed
        ? opened(breaker, nowMs, settings)
        : { ...closedBreaker(nowMs), changedAtMs: nowMs };
    case BreakerState.OPEN:
      // A call admitted before the breaker opened: its result changes nothing now.
      return breaker;
    case BreakerState.CLOSED: {
      const fresh = nowMs - breaker.windowStartMs >= settings.windowMs;
      const counted: Breaker = {
        ...breaker,
        windowStartMs: fresh ? nowMs : breaker.windowStartMs,
        calls: (fresh ? 0 : breaker.calls) + 1,
        failures: (fresh ? 0 : breaker.failures) + (failed ? 1 : 0),
      };
      return trips(counted.calls, counted.failures, settings)
        ? opened(counted, nowMs, settings)
        : counted;
    }
  }
};

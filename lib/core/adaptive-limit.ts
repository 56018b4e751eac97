import { type CallTokens, emptiedTokens } from "./call-tokens.js";
import { BreakerState, DEFAULT_BREAKER_SETTINGS } from "./circuit-breaker.js";
import { fleetShareOf, heardLately, type OthersSeen } from "./fleet-share.js";
import { movingAverage } from "./moving-average.js";
import { retryAfterOf } from "./outcome.js";
import { ErrorCategory } from "./policy.js";
import {
  atCut,
  DEFAULT_REFUSAL_NOISE_SETTINGS,
  isNoise,
  judgedWith,
  NO_REFUSAL_NOISE,
  type RefusalNoise,
  type RefusalNoiseSettings,
  tracked,
} from "./refusal-noise.js";
import { parseRetryAfter } from "./retry-after.js";
import { CallEvidence, callEvidence, type EndedCall } from "./target-health.js";
import { RATE_WINDOW_MS, rateWindowOf } from "./target-limits.js";
import { MAX_TARGET_LIMIT, type TargetLimits } from "./target-settings.js";

/*
 * An adaptive limit per target (issue #35), as pure functions over a value: the call rate a
 * target is allowed, learned from what its calls say. AIMD, as TCP's congestion window and the
 * AIMD limiters of Envoy and Netflix's concurrency-limits do: the rate creeps up while the target
 * answers well and is cut by a fifth when it says it is overloaded (429, 503, a Lambda throttle, a
 * timeout of a call that reached it), or when its latency rises well above its own baseline,
 * which is how a saturating target says so before it starts refusing. A `Retry-After` holds the
 * rate; a long one also pauses the calls. An open breaker makes the allowance zero.
 *
 * The deployment's static limits are ceilings, the floor keeps every target probed (only its
 * breaker may stop it), and the clock is passed in. Where the state lives and how instances share
 * it is the caller's business (docs/design-notes.md, "Adaptive per-target limits (#35)").
 */

/** How an adaptive limit learns, and its bounds. */
export interface AdaptiveLimitSettings {
  /** Lowest allowed rate, calls/s: a target is never starved, only its breaker may stop it. */
  readonly floorPerSecond: number;
  /** Highest allowed rate, calls/s: the target's declared `maxCallsPerSecond`. */
  readonly maxCallsPerSecond: number;
  /** Highest allowed concurrency: the target's declared `maxConcurrentCalls`. */
  readonly maxConcurrentCalls: number;
  /** What the rate is multiplied by on an overload signal. */
  readonly decreaseFactor: number;
  /**
   * The 429s the last full second must hold before a cut goes to what it admitted (see
   * `admittedOverQuota`): a quota's answer, not a few unlucky calls. Of one instance's 15 calls a
   * second to a partner refusing a tenth at random, 3 or more are refused in about one second in
   * five, and 5 or more in about one in a hundred; a quota the rate is well over refuses more.
   */
  readonly minQuotaRefusals: number;
  /**
   * At most one decrease in this long: the calls in flight when a target is overloaded all fail
   * together, and one overload moment must count once, not once per call.
   */
  readonly decreaseIntervalMs: number;
  /** Least increase per second of healthy calls at the allowed rate, calls/s. */
  readonly increasePerSecond: number;
  /**
   * Increase per second of healthy calls as a share of the rate, when larger: a pure +1/s would
   * take 100 s to win back a halving at 200 calls/s; this keeps recovery within ~15 s at any rate.
   */
  readonly increaseShare: number;
  /**
   * Once the rate has passed the rate of its last cut, the increase doubles every this long (a
   * bounded form of TCP CUBIC's and BIC's max probing): near the last overload the probe stays
   * cautious, so a partner at its capacity sees as few 429s as with a constant step, but a
   * partner whose capacity grew is found in seconds, not in the tens of seconds a constant step
   * of 5 % takes to double a rate.
   */
  readonly probeDoublingMs: number;
  /**
   * How far past the rate of its last cut the rate must climb, as a share of it, before probing
   * starts: the last cut's rate was already over the partner's capacity by the time its 429s came
   * back, so only a rate clearly above it says the capacity grew.
   */
  readonly probeMarginShare: number;
  /** The most the increase may reach per second as a share of the rate, however long it probed. */
  readonly maxIncreaseShare: number;
  /** Longest a `Retry-After` holds the rate: a partner's hint must not silence it for an hour. */
  readonly maxHoldMs: number;
  /**
   * A `Retry-After` on a 429 or 503 at least this long also pauses the calls. A shorter one (whole
   * seconds cannot say less than 1, which is how a token bucket says "in a moment") only holds
   * the rate: pausing every call for it would waste a second of the partner's capacity each time.
   */
  readonly minPauseMs: number;
  /** Recent latency above this multiple of the baseline is an overload signal. */
  readonly latencyTolerance: number;
  /** ...provided it is also this much above it: 2 ms to 6 ms says nothing about a partner. */
  readonly minLatencyRiseMs: number;
  /**
   * The share of the rate the calls sent must make up for the rate to count as in use. Only then
   * do healthy calls raise it: an allowance unused says nothing of what the target can take. And
   * only then does raised latency cut it: a partner slowed by someone else is not helped by fewer
   * of our calls (the rate is held then), and the slowest calls of a burst are the last to end,
   * which must not cut the rate of a target that has gone quiet.
   */
  readonly minLoadShare: number;
  /**
   * Raised latency narrows the calls in flight only with this many times as many out as the
   * baseline was learned at: see `crowded`.
   */
  readonly crowdingFactor: number;
  /** Weight of each healthy call's latency in the slow baseline average (about 1 / samples). */
  readonly baselineWeight: number;
  /** Weight of each healthy call's latency in the fast recent average. */
  readonly recentWeight: number;
  /**
   * Concurrency allowed per call the rate expects in flight (rate × baseline latency, Little's
   * law): when latency rises past this multiple, calls in flight cap the pace before the rate does.
   */
  readonly concurrencyHeadroom: number;
  /** A timeout counts only for a call given this long: the breakers' rule (target-health.ts). */
  readonly minCountedTimeoutMs: number;
  /**
   * How long what the other instances said of a target counts ({@link fleetShareOf}). They say
   * it at least every 5 s while they hold it back; an older word is from instances that may have
   * stopped, and a share computed from it would slow this one's recovery for nothing.
   */
  readonly othersMaxAgeMs: number;
  /** How 429s that fewer calls do not remove are told from a quota (./refusal-noise.ts). */
  readonly refusalNoise: RefusalNoiseSettings;
}

/** The defaults; the ceilings are the most a deployment may declare, for targets without limits. */
export const DEFAULT_ADAPTIVE_LIMIT_SETTINGS: AdaptiveLimitSettings = {
  floorPerSecond: 1,
  maxCallsPerSecond: MAX_TARGET_LIMIT,
  maxConcurrentCalls: MAX_TARGET_LIMIT,
  decreaseFactor: 0.8,
  minQuotaRefusals: 5,
  decreaseIntervalMs: 1_000,
  increasePerSecond: 1,
  increaseShare: 0.05,
  probeDoublingMs: 1_000,
  probeMarginShare: 0.05,
  maxIncreaseShare: 0.5,
  maxHoldMs: 60_000,
  minPauseMs: 2_000,
  latencyTolerance: 2,
  minLatencyRiseMs: 50,
  minLoadShare: 0.5,
  crowdingFactor: 2,
  baselineWeight: 0.01,
  recentWeight: 0.1,
  concurrencyHeadroom: 2,
  minCountedTimeoutMs: DEFAULT_BREAKER_SETTINGS.minCountedTimeoutMs,
  othersMaxAgeMs: 15_000,
  refusalNoise: DEFAULT_REFUSAL_NOISE_SETTINGS,
};

/**
 * The settings for a target: its declared limits become the ceilings (unset, the defaults'),
 * and its breaker's `minCountedTimeoutMs` decides which timeouts count, as it does for the breaker.
 */
export const adaptiveSettingsFor = (
  limits: TargetLimits,
  minCountedTimeoutMs: number,
  base: AdaptiveLimitSettings = DEFAULT_ADAPTIVE_LIMIT_SETTINGS,
): AdaptiveLimitSettings => ({
  ...base,
  maxCallsPerSecond: limits.maxCallsPerSecond ?? base.maxCallsPerSecond,
  maxConcurrentCalls: limits.maxConcurrentCalls ?? base.maxConcurrentCalls,
  minCountedTimeoutMs,
});

/** Why the limit last changed, for operators (`ricochet targets`, the console). */
export const LimitChange = {
  START: "start",
  INCREASE: "increase",
  OVERLOAD: "overload",
  LATENCY: "latency",
  RETRY_AFTER: "retry_after",
  BREAKER_OPEN: "breaker_open",
  BREAKER_CLOSED: "breaker_closed",
} as const;
export type LimitChange = (typeof LimitChange)[keyof typeof LimitChange];

/** The healthy calls' latency: a slow baseline and a fast recent average, in ms. */
interface LatencyAverages {
  readonly baselineMs: number;
  readonly recentMs: number;
  /** The calls in flight the baseline was learned at, averaged as slowly; unset until told. */
  readonly baselineInFlight?: number | undefined;
}

/** One target's adaptive limit. */
export interface AdaptiveLimit {
  /** The allowed rate, calls/s, kept while the breaker is open so recovery starts from it. */
  readonly callsPerSecond: number;
  readonly breakerOpen: boolean;
  /** When the rate was last cut. */
  readonly lastDecreaseAtMs?: number | undefined;
  /** When the calls in flight allowed were last cut: apart from the rate's, see {@link cutRecently}. */
  readonly lastNarrowedAtMs?: number | undefined;
  /** The rate the calls were sent at when the rate was last cut: above it, the increase probes. */
  readonly peakPerSecond?: number | undefined;
  /** When the rate passed `peakPerSecond` (or the last hint ended); unset below it. */
  readonly probingSinceMs?: number | undefined;
  /** No increase before this: the target's `Retry-After`. */
  readonly holdUntilMs?: number | undefined;
  /** No call before this: a long `Retry-After` on a 429 or 503. */
  readonly pauseUntilMs?: number | undefined;
  /** Unset until the first healthy call. */
  readonly latency?: LatencyAverages | undefined;
  /** What the other instances holding the target back last said; unset: none known. */
  readonly others?: OthersSeen | undefined;
  /** What this instance counted of the target's 429s around its cuts; unset: nothing yet. */
  readonly noise?: RefusalNoise | undefined;
  /**
   * Calls in flight allowed, learned from the calls in flight when the target was overloaded;
   * unset until an overload said how many it could take. A partner bounded by its workers, not
   * by a quota, refuses a burst of a second's calls at a rate it can serve spread out: the rate
   * alone would be cut until a second's calls fit its workers at once.
   */
  readonly concurrencyLimit?: number | undefined;
  /**
   * The rate's bucket of one second's calls (./call-tokens.ts), spent by the admission while the
   * limit holds calls back and emptied by a 429; unset until then.
   */
  readonly tokens?: CallTokens | undefined;
  /** The aligned second the calls are being counted in, and its count and the one before. */
  readonly windowStartMs: number;
  readonly windowCalls: number;
  readonly previousWindowCalls: number;
  readonly reason: LimitChange;
  readonly changedAtMs: number;
}

/** What happened to a target, as the limit learns from it. */
export type LimitObservation =
  | {
      readonly kind: "call";
      readonly call: EndedCall;
      /** Calls to the target in flight when it ended, this one included; unknown: unset. */
      readonly inFlight?: number | undefined;
    }
  | { readonly kind: "breaker"; readonly state: BreakerState }
  | {
      /** What the other instances holding the target back said, read from the target's item. */
      readonly kind: "others";
      readonly others: OthersSeen | undefined;
    };

/** What the limit allows now. */
export interface Allowance {
  /** Calls/s: between the floor and the ceiling, or 0 while the breaker is open. */
  readonly callsPerSecond: number;
  /** Calls in flight at once: at least 1 up to the ceiling, or 0 while the breaker is open. */
  readonly maxConcurrentCalls: number;
  /** The learned {@link AdaptiveLimit.concurrencyLimit}, when one holds: no call above it. */
  readonly learnedConcurrency?: number | undefined;
  /** No call before this (a long `Retry-After`); unset when calls may start now. */
  readonly notBeforeMs?: number | undefined;
  readonly reason: LimitChange;
}

/**
 * A target's limit before any call: at its ceiling, so that a healthy target is never slowed
 * (what it gets today); the first overload cuts from the rate actually sent, not from the ceiling.
 */
export const startingLimit = (
  nowMs: number,
  settings: AdaptiveLimitSettings = DEFAULT_ADAPTIVE_LIMIT_SETTINGS,
): AdaptiveLimit => ({
  callsPerSecond: settings.maxCallsPerSecond,
  breakerOpen: false,
  windowStartMs: rateWindowOf(nowMs),
  windowCalls: 0,
  previousWindowCalls: 0,
  reason: LimitChange.START,
  changedAtMs: nowMs,
});

const clamp = (value: number, low: number, high: number): number =>
  Math.min(high, Math.max(low, value));

/** The floor, never above the ceiling (a target declared at 1 call/s with a floor of 2 gets 1). */
const floorOf = (settings: AdaptiveLimitSettings): number =>
  Math.min(settings.floorPerSecond, settings.maxCallsPerSecond);

const boundedRate = (rate: number, settings: AdaptiveLimitSettings): number =>
  clamp(rate, floorOf(settings), settings.maxCallsPerSecond);

/**
 * The call counted into its aligned second. A clock behind counts into the window held, as the
 * breaker's and the rate limit's counters do; a gap of more than a second forgets the old counts.
 */
const counted = (limit: AdaptiveLimit, nowMs: number): AdaptiveLimit => {
  const windowStartMs = rateWindowOf(nowMs);
  if (windowStartMs <= limit.windowStartMs) return { ...limit, windowCalls: limit.windowCalls + 1 };
  const adjacent = windowStartMs === limit.windowStartMs + RATE_WINDOW_MS;
  return {
    ...limit,
    windowStartMs,
    windowCalls: 1,
    previousWindowCalls: adjacent ? limit.windowCalls : 0,
  };
};

/** Calls/s this limit's calls were actually made at: the last full second, or this one so far. */
const sentRate = (limit: AdaptiveLimit): number =>
  Math.max(limit.previousWindowCalls, limit.windowCalls);

/** What kind of overload a failing call reports, if any. */
const Overload = {
  /** A 429: a quota ran dry; the rate is cut. */
  QUOTA: "quota",
  /**
   * A 503, a Lambda throttle, a timeout of a sent request: the target ran out of workers, so the
   * calls in flight teach its concurrency. The calls in flight when a token bucket ran dry say
   * nothing about how many it can serve at once, hence the two kinds.
   */
  BUSY: "busy",
} as const;
type Overload = (typeof Overload)[keyof typeof Overload];

/**
 * The overload a failing call says the target is in; none when it says the target is broken
 * rather than overloaded: a 500 or a refused connection is the breaker's business, and fewer
 * calls would not mend it.
 */
const overloadOf = (call: EndedCall): Overload | undefined => {
  const { result } = call;
  if (result.kind === "response") {
    if (result.statusCode === 429) return Overload.QUOTA;
    return result.statusCode === 503 ? Overload.BUSY : undefined;
  }
  if (result.category === ErrorCategory.THROTTLED) return Overload.BUSY;
  return result.category === ErrorCategory.TIMEOUT && result.requestSent
    ? Overload.BUSY
    : undefined;
};

/**
 * Whether a cut made at `lastCutAtMs` was less than `decreaseIntervalMs` ago: one overload moment
 * counts once. The rate and the calls in flight are timed apart: a quota's 429s must cut the rate
 * however recently raised latency narrowed the calls in flight, or a busy bench machine's slow
 * loopback calls held a partner's rate at 38/s against a quota of 20 for seven seconds of 429s.
 * A clock far behind the last cut does not block the next one.
 */
const cutRecently = (
  lastCutAtMs: number | undefined,
  nowMs: number,
  settings: AdaptiveLimitSettings,
): boolean =>
  lastCutAtMs !== undefined && Math.abs(nowMs - lastCutAtMs) < settings.decreaseIntervalMs;

/**
 * The calls the target let through in the last full second, when it refused at least
 * `minQuotaRefusals` of that second's with 429 and at least two cuts' worth of them: a quota's
 * own answer to how much it takes. Unset when it refused fewer then (the overload began this
 * second, or calls sent in a clump met a bucket briefly short), or the counts are not of it.
 * Without the two cuts' worth, a second's calls sent in a clump (16 sent, 11 let through) cut a
 * quota of 20 to what it let through, and the bench's restored phase delivered 0.88 of the quota
 * against 0.91–0.94 with it.
 */
const admittedOverQuota = (
  limit: AdaptiveLimit,
  settings: AdaptiveLimitSettings,
): number | undefined => {
  const noise = limit.noise;
  if (noise?.secondStartMs !== limit.windowStartMs) return undefined;
  const admitted = noise.admittedLastSecond;
  if (admitted === undefined) return undefined;
  const sent = limit.previousWindowCalls;
  const refused = sent - admitted;
  const twoCuts = admitted <= sent * settings.decreaseFactor ** 2;
  return refused >= settings.minQuotaRefusals && twoCuts ? admitted : undefined;
};

/**
 * Cut by `decreaseFactor`, from the rate actually sent when it is below the allowance (as TCP
 * halves the data in flight, not an unused window): a target allowed 10 000/s and sent 50/s gets
 * 40/s, not 8 000/s. Cut to what the target admitted in the last full second when that is lower
 * ({@link admittedOverQuota}): a rate far over a quota comes down in one cut, not in a fifth a
 * second. In the rate-limited bench a probe that had run to 49/s against a quota of 20 took five
 * cuts, five seconds and 93 429s to come down; a quota halved took four. At most once per
 * `decreaseIntervalMs` ({@link cutRecently}).
 */
const decreased = (
  limit: AdaptiveLimit,
  nowMs: number,
  reason: LimitChange,
  settings: AdaptiveLimitSettings,
): AdaptiveLimit => {
  if (cutRecently(limit.lastDecreaseAtMs, nowMs, settings)) return limit;
  const from = Math.min(limit.callsPerSecond, sentRate(limit));
  const cut = from * settings.decreaseFactor;
  const callsPerSecond = boundedRate(
    Math.min(cut, admittedOverQuota(limit, settings) ?? cut),
    settings,
  );
  const others = heardLately(limit.others, nowMs, settings.othersMaxAgeMs)?.refusals;
  const noise = limit.noise ?? NO_REFUSAL_NOISE;
  return {
    ...limit,
    noise: atCut(noise, others, nowMs, callsPerSecond, settings.refusalNoise),
    callsPerSecond,
    lastDecreaseAtMs: nowMs,
    peakPerSecond: from,
    probingSinceMs: undefined,
    reason,
    changedAtMs: nowMs,
  };
};

/**
 * An overload that says the target's workers are busy, with `inFlight` calls out: the calls in
 * flight allowed are cut by `decreaseFactor` from those out (never below one, never raised by a
 * cut: calls ending late report fewer out), and the rate is kept, since it was not the rate the
 * target could not take. Once one call at a time is still too many, the rate is cut instead.
 * At most one cut of the calls in flight per `decreaseIntervalMs`.
 */
const narrowed = (
  limit: AdaptiveLimit,
  nowMs: number,
  reason: LimitChange,
  settings: AdaptiveLimitSettings,
  inFlight: number,
): AdaptiveLimit => {
  const current = limit.concurrencyLimit;
  if (current !== undefined && current < 2) return decreased(limit, nowMs, reason, settings);
  if (cutRecently(limit.lastNarrowedAtMs, nowMs, settings)) return limit;
  const cut = Math.max(1, Math.floor(inFlight * settings.decreaseFactor));
  return {
    ...limit,
    concurrencyLimit: current === undefined ? cut : Math.min(current, cut),
    lastNarrowedAtMs: nowMs,
    reason,
    changedAtMs: nowMs,
  };
};

/** The cut an overload calls for: of the calls in flight when it says so and they are known. */
const overloaded = (
  limit: AdaptiveLimit,
  nowMs: number,
  reason: LimitChange,
  settings: AdaptiveLimitSettings,
  busyInFlight: number | undefined,
): AdaptiveLimit =>
  busyInFlight === undefined
    ? decreased(limit, nowMs, reason, settings)
    : narrowed(limit, nowMs, reason, settings, busyInFlight);

/**
 * A healthy call's share of the learned concurrency's increase: one call more in flight per two
 * seconds of calls (or per twice `concurrencyLimit` calls, when fewer are sent), additive as
 * TCP's congestion window is. At one per second a partner of 4 workers (saturating bench) was
 * probed with a fifth every second and answered 0.10 503s per delivery; at one per two, 0.07,
 * with the same goodput. Dropped once it no longer binds: at the ceiling.
 */
const grownConcurrency = (
  limit: AdaptiveLimit,
  settings: AdaptiveLimitSettings,
): number | undefined => {
  const current = limit.concurrencyLimit;
  if (current === undefined) return undefined;
  const grown = current + 1 / (2 * Math.max(current, sentRate(limit), 1));
  return grown >= settings.maxConcurrentCalls ? undefined : grown;
};

/**
 * The increase per second of healthy calls at the allowed rate: `max(increasePerSecond × share,
 * rate × increaseShare)` up to the rate of the last cut, doubling every `probeDoublingMs` past
 * it, up to `maxIncreaseShare` of the rate. The least step is this instance's share of the one
 * the target takes ({@link fleetShareOf}): the instances' steps add up to one instance's.
 */
const increasePerSecondOf = (
  limit: AdaptiveLimit,
  nowMs: number,
  settings: AdaptiveLimitSettings,
): number => {
  const rate = limit.callsPerSecond;
  const share = fleetShareOf(rate, limit.others, nowMs, settings.othersMaxAgeMs);
  const step = Math.max(settings.increasePerSecond * share, rate * settings.increaseShare);
  if (limit.probingSinceMs === undefined) return step;
  const doublings = Math.floor(
    Math.max(0, nowMs - limit.probingSinceMs) / settings.probeDoublingMs,
  );
  return Math.min(step * 2 ** doublings, Math.max(step, rate * settings.maxIncreaseShare));
};

/** Whether the rate has passed the rate of its last cut (a limit never cut is always past it). */
const pastPeak = (limit: AdaptiveLimit, settings: AdaptiveLimitSettings): boolean =>
  limit.callsPerSecond >= (limit.peakPerSecond ?? 0) * (1 + settings.probeMarginShare);

/**
 * Whether the calls sent make up at least `minLoadShare` of the rate: only a rate in use says
 * anything of what the target can take.
 */
const loaded = (limit: AdaptiveLimit, settings: AdaptiveLimitSettings): boolean =>
  sentRate(limit) >= limit.callsPerSecond * settings.minLoadShare;

/**
 * One healthy call's share of a second's increase. A rate not in use ({@link loaded}) is not
 * raised, and its probe starts again once it is, as TCP leaves the window of a sender that does
 * not fill it (RFC 7661): in the rate-limited bench, seconds of backlog deferred in clumps left
 * the rate half used while its probe kept doubling, and the next clump went at 50 calls in one
 * second to a partner taking 20 (29 refused).
 */
const increased = (
  limit: AdaptiveLimit,
  nowMs: number,
  settings: AdaptiveLimitSettings,
): AdaptiveLimit => {
  const held = limit.holdUntilMs !== undefined && nowMs < limit.holdUntilMs;
  if (held) return limit;
  const concurrencyLimit = grownConcurrency(limit, settings);
  if (limit.callsPerSecond >= settings.maxCallsPerSecond)
    return limit.concurrencyLimit === undefined ? limit : { ...limit, concurrencyLimit };
  // The calls in flight a busy target was narrowed to are in use whatever the rate: they grow.
  if (!loaded(limit, settings)) return { ...limit, probingSinceMs: undefined, concurrencyLimit };
  const rate = limit.callsPerSecond;
  const probing = pastPeak(limit, settings)
    ? { probingSinceMs: limit.probingSinceMs ?? nowMs }
    : {};
  const step = increasePerSecondOf({ ...limit, ...probing }, nowMs, settings) / rate;
  return {
    ...limit,
    ...probing,
    callsPerSecond: boundedRate(rate + step, settings),
    concurrencyLimit,
    reason: LimitChange.INCREASE,
    changedAtMs: nowMs,
  };
};

/** The latency above which a sample counts as raised, from the baseline. */
const raisedAbove = (baselineMs: number, settings: AdaptiveLimitSettings): number =>
  Math.max(baselineMs * settings.latencyTolerance, baselineMs + settings.minLatencyRiseMs);

/**
 * The averages after a healthy call. Each sample is cut at twice the raised threshold, so that
 * one stray slow call (a cold start, a GC pause) moves the recent average by a bounded amount
 * and it takes several in a row to raise it.
 */
const averaged = (
  latency: LatencyAverages | undefined,
  durationMs: number,
  inFlight: number | undefined,
  settings: AdaptiveLimitSettings,
): LatencyAverages => {
  if (latency === undefined)
    return {
      baselineMs: durationMs,
      recentMs: durationMs,
      ...(inFlight === undefined ? {} : { baselineInFlight: inFlight }),
    };
  const sample = Math.min(durationMs, 2 * raisedAbove(latency.baselineMs, settings));
  const known = latency.baselineInFlight;
  const baselineInFlight =
    inFlight === undefined ? known : movingAverage(known, inFlight, settings.baselineWeight);
  return {
    baselineMs: movingAverage(latency.baselineMs, sample, settings.baselineWeight),
    recentMs: movingAverage(latency.recentMs, sample, settings.recentWeight),
    ...(baselineInFlight === undefined ? {} : { baselineInFlight }),
  };
};

const latencyRaised = (latency: LatencyAverages, settings: AdaptiveLimitSettings): boolean =>
  latency.recentMs > raisedAbove(latency.baselineMs, settings);

/**
 * Whether raised latency came with more calls in flight than the baseline was learned at
 * (`crowdingFactor` times as many): only then is it the target's queue growing with our calls,
 * which fewer of them would shorten. Latency raised at the usual calls in flight is someone
 * else's doing, the target's or the calling instance's own (a busy event loop times every call
 * slow), and narrowing would only idle a target that can take the calls: on two busy cores a
 * loopback partner answering at once was narrowed to one call at a time and its goodput halved.
 * Unknown calls in flight leave the rate rule alone.
 */
const crowded = (
  latency: LatencyAverages,
  inFlight: number | undefined,
  settings: AdaptiveLimitSettings,
): boolean =>
  inFlight === undefined ||
  latency.baselineInFlight === undefined ||
  inFlight >= settings.crowdingFactor * latency.baselineInFlight;

/** The hold (and, for a long hint on an overload, the pause) a call's `Retry-After` asks for. */
const heldBy = (
  limit: AdaptiveLimit,
  call: EndedCall,
  nowMs: number,
  settings: AdaptiveLimitSettings,
): AdaptiveLimit => {
  const seconds = parseRetryAfter(retryAfterOf(call.result), nowMs);
  if (seconds === undefined) return limit;
  const holdMs = Math.min(seconds * 1_000, settings.maxHoldMs);
  const untilMs = nowMs + holdMs;
  // Calls in flight answer one after another: the latest end of their holds wins.
  const holdUntilMs = Math.max(limit.holdUntilMs ?? untilMs, untilMs);
  const pauses = overloadOf(call) !== undefined && holdMs >= settings.minPauseMs;
  const pauseUntilMs = pauses
    ? Math.max(limit.pauseUntilMs ?? untilMs, untilMs)
    : limit.pauseUntilMs;
  return {
    ...limit,
    holdUntilMs,
    pauseUntilMs,
    // The partner asked for patience: probing starts again, cautiously, once the hold is over.
    probingSinceMs: undefined,
    reason: LimitChange.RETRY_AFTER,
    changedAtMs: nowMs,
  };
};

const afterHealthy = (
  limit: AdaptiveLimit,
  durationMs: number,
  nowMs: number,
  settings: AdaptiveLimitSettings,
  inFlight: number | undefined,
): AdaptiveLimit => {
  const latency = averaged(limit.latency, durationMs, inFlight, settings);
  const withLatency = { ...limit, latency };
  if (!latencyRaised(latency, settings)) return increased(withLatency, nowMs, settings);
  return loaded(limit, settings) && crowded(latency, inFlight, settings)
    ? overloaded(withLatency, nowMs, LimitChange.LATENCY, settings, inFlight)
    : withLatency;
};

/** The refusal counts after `call`, placed against the last cut (before any cut it makes). */
const noiseAfter = (
  limit: AdaptiveLimit,
  call: EndedCall,
  nowMs: number,
  settings: AdaptiveLimitSettings,
): RefusalNoise =>
  tracked(
    limit.noise ?? NO_REFUSAL_NOISE,
    {
      refused: overloadOf(call) === Overload.QUOTA,
      sentAtMs: nowMs - call.result.durationMs,
      endedAtMs: nowMs,
      lastCutAtMs: limit.lastDecreaseAtMs,
      lockoutMs: settings.decreaseIntervalMs,
    },
    settings.refusalNoise,
  );

/** What the others said, and the noise judged again on their counts pooled with this one's. */
const afterOthers = (
  limit: AdaptiveLimit,
  others: OthersSeen | undefined,
  settings: AdaptiveLimitSettings,
): AdaptiveLimit => {
  const noise = limit.noise ?? NO_REFUSAL_NOISE;
  return {
    ...limit,
    others,
    noise: judgedWith(noise, others?.refusals, limit.callsPerSecond, settings.refusalNoise),
  };
};

const afterCall = (
  limit: AdaptiveLimit,
  call: EndedCall,
  nowMs: number,
  settings: AdaptiveLimitSettings,
  inFlight: number | undefined,
): AdaptiveLimit => {
  // The breakers' rule, not a second one: what says nothing about the target changes nothing.
  const evidence = callEvidence(call, settings.minCountedTimeoutMs);
  if (evidence === CallEvidence.SILENT) return limit;
  const overload = overloadOf(call);
  const noise = noiseAfter(limit, call, nowMs, settings);
  // A 429 the target answers whatever it is sent is an attempt spent, not a reason to slow down.
  if (overload === Overload.QUOTA && isNoise(noise, settings.refusalNoise))
    return { ...counted(limit, nowMs), noise };
  const held = heldBy(counted({ ...limit, noise }, nowMs), call, nowMs, settings);
  if (evidence === CallEvidence.HEALTHY)
    return afterHealthy(held, call.result.durationMs, nowMs, settings, inFlight);
  if (overload === undefined) return held;
  if (overload === Overload.QUOTA) {
    const emptied = { ...held, tokens: emptiedTokens(nowMs) };
    return overloaded(emptied, nowMs, LimitChange.OVERLOAD, settings, undefined);
  }
  return overloaded(held, nowMs, LimitChange.OVERLOAD, settings, inFlight);
};

const afterBreaker = (limit: AdaptiveLimit, state: BreakerState, nowMs: number): AdaptiveLimit => {
  const breakerOpen = state === BreakerState.OPEN;
  if (breakerOpen === limit.breakerOpen) return limit;
  const reason = breakerOpen ? LimitChange.BREAKER_OPEN : LimitChange.BREAKER_CLOSED;
  return { ...limit, breakerOpen, reason, changedAtMs: nowMs };
};

/**
 * The limit after `observation`: a call that ended (its result and the timeout it was given),
 * the target's breaker changing state, or what the other instances said of it. Half-open counts
 * as not open: the breaker lets its own probes through.
 */
export const next = (
  limit: AdaptiveLimit,
  observation: LimitObservation,
  nowMs: number,
  settings: AdaptiveLimitSettings = DEFAULT_ADAPTIVE_LIMIT_SETTINGS,
): AdaptiveLimit => {
  if (observation.kind === "breaker") return afterBreaker(limit, observation.state, nowMs);
  if (observation.kind === "others") return afterOthers(limit, observation.others, settings);
  return afterCall(limit, observation.call, nowMs, settings, observation.inFlight);
};

/**
 * Calls in flight the rate needs at the baseline latency (Little's law), with headroom; the
 * ceiling until a healthy call has been timed.
 */
const concurrencyOf = (rate: number, limit: AdaptiveLimit, settings: AdaptiveLimitSettings) => {
  if (limit.latency === undefined) return settings.maxConcurrentCalls;
  const needed = Math.ceil(
    ((rate * limit.latency.baselineMs) / 1_000) * settings.concurrencyHeadroom,
  );
  return clamp(needed, 1, settings.maxConcurrentCalls);
};

/**
 * What `limit` allows at `nowMs`. The bounds are applied here as well as in `next`, so a
 * ceiling lowered by a redeployment holds at once over a limit learned before it.
 */
export const allowance = (
  limit: AdaptiveLimit,
  nowMs: number,
  settings: AdaptiveLimitSettings = DEFAULT_ADAPTIVE_LIMIT_SETTINGS,
): Allowance => {
  if (limit.breakerOpen) return { callsPerSecond: 0, maxConcurrentCalls: 0, reason: limit.reason };
  const callsPerSecond = boundedRate(limit.callsPerSecond, settings);
  const paused = limit.pauseUntilMs !== undefined && nowMs < limit.pauseUntilMs;
  const learned =
    limit.concurrencyLimit === undefined
      ? undefined
      : clamp(Math.floor(limit.concurrencyLimit), 1, settings.maxConcurrentCalls);
  const fromRate = concurrencyOf(callsPerSecond, limit, settings);
  return {
    callsPerSecond,
    maxConcurrentCalls: learned === undefined ? fromRate : Math.min(fromRate, learned),
    ...(learned === undefined ? {} : { learnedConcurrency: learned }),
    ...(paused ? { notBeforeMs: limit.pauseUntilMs } : {}),
    reason: limit.reason,
  };
};

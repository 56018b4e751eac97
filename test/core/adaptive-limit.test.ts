import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AdaptiveLimit,
  type AdaptiveLimitSettings,
  adaptiveSettingsFor,
  allowance,
  DEFAULT_ADAPTIVE_LIMIT_SETTINGS,
  LimitChange,
  type LimitObservation,
  next,
  startingLimit,
} from "../../lib/core/adaptive-limit.js";
import { BreakerState } from "../../lib/core/circuit-breaker.js";
import type { AttemptResult } from "../../lib/core/outcome.js";
import { ErrorCategory } from "../../lib/core/policy.js";
import { seededRandom } from "../../lib/core/random.js";
import { NO_TRACKS } from "../../lib/core/refusal-noise.js";
import { RATE_WINDOW_MS, rateWindowOf } from "../../lib/core/target-limits.js";
import { MAX_TARGET_LIMIT } from "../../lib/core/target-settings.js";
import { FIXED_NOW_MS } from "../support/factories.js";
import {
  admitted,
  driveLimit,
  healthyNoisyPartner,
  rateLimitedPartner,
  ratePerSecond,
} from "../support/simulated-partner.js";

const NOW = FIXED_NOW_MS; // the start of an aligned second
const settings: AdaptiveLimitSettings = adaptiveSettingsFor(
  { maxCallsPerSecond: 1_000, maxConcurrentCalls: 100 },
  1_000,
);

const response = (statusCode: number, retryAfter?: string, durationMs = 100): AttemptResult => ({
  kind: "response",
  statusCode,
  retryAfter,
  durationMs,
});
const failure = (
  category: ErrorCategory,
  requestSent: boolean,
  extra: Partial<Extract<AttemptResult, { kind: "error" }>> = {},
): AttemptResult => ({
  kind: "error",
  category,
  requestSent,
  message: category,
  durationMs: 100,
  ...extra,
});
const call = (result: AttemptResult, timeoutMs = 10_000): LimitObservation => ({
  kind: "call",
  call: { result, timeoutMs },
});
const breaker = (state: BreakerState): LimitObservation => ({ kind: "breaker", state });

/** A limit at `callsPerSecond`, whose last full second sent as many calls as it allows. */
const limitAt = (callsPerSecond: number, extra: Partial<AdaptiveLimit> = {}): AdaptiveLimit => ({
  ...startingLimit(NOW, settings),
  callsPerSecond,
  previousWindowCalls: Math.ceil(callsPerSecond),
  ...extra,
});

/** `limit` as if the second before `nowMs`'s had sent its rate: a rate in use then. */
const sendingAt = (limit: AdaptiveLimit, nowMs: number): AdaptiveLimit => ({
  ...limit,
  windowStartMs: rateWindowOf(nowMs) - RATE_WINDOW_MS,
  windowCalls: Math.ceil(limit.callsPerSecond),
});

/** The limit after `observations`, each `stepMs` after the one before from NOW. */
const observed = (
  start: AdaptiveLimit,
  observations: readonly LimitObservation[],
  stepMs = 0,
  tuned: AdaptiveLimitSettings = settings,
): AdaptiveLimit =>
  observations.reduce((limit, o, i) => next(limit, o, NOW + i * stepMs, tuned), start);

describe("what one call does to the rate", () => {
  const increased = 100 + 5 / 100; // a second at the rate adds 5 % of it (more than 1/s)
  it.each<[string, AttemptResult, number, number, LimitChange]>([
    ["a 429 cuts it by a fifth", response(429), 10_000, 80, LimitChange.OVERLOAD],
    ["a 503 cuts it by a fifth", response(503), 10_000, 80, LimitChange.OVERLOAD],
    [
      "a Lambda throttle cuts it",
      failure(ErrorCategory.THROTTLED, false),
      10_000,
      80,
      LimitChange.OVERLOAD,
    ],
    [
      "a counted timeout of a call that reached the target cuts it",
      failure(ErrorCategory.TIMEOUT, true),
      10_000,
      80,
      LimitChange.OVERLOAD,
    ],
    [
      "a timeout shorter than minCountedTimeoutMs changes nothing (the breakers' rule)",
      failure(ErrorCategory.TIMEOUT, true),
      500,
      100,
      LimitChange.START,
    ],
    [
      "a failure before contact changes nothing",
      failure(ErrorCategory.TIMEOUT, false, { beforeContact: true }),
      10_000,
      100,
      LimitChange.START,
    ],
    [
      "an address refused by the policy changes nothing",
      failure(ErrorCategory.TARGET_REFUSED, false),
      10_000,
      100,
      LimitChange.START,
    ],
    [
      "a connect timeout (nothing reached the target) is the breaker's, not an overload",
      failure(ErrorCategory.TIMEOUT, false),
      10_000,
      100,
      LimitChange.START,
    ],
    ["a 500 is the breaker's, not an overload", response(500), 10_000, 100, LimitChange.START],
    [
      "a refused connection is the breaker's, not an overload",
      failure(ErrorCategory.CONNECTION_REFUSED, false),
      10_000,
      100,
      LimitChange.START,
    ],
    ["a 2xx raises it", response(204), 10_000, increased, LimitChange.INCREASE],
    [
      "a 4xx refusal shows the target up and raises it",
      response(404),
      10_000,
      increased,
      LimitChange.INCREASE,
    ],
  ])("%s", (_name, result, timeoutMs, rate, reason) => {
    const limit = next(limitAt(100), call(result, timeoutMs), NOW, settings);
    expect(limit.callsPerSecond).toBeCloseTo(rate, 9);
    expect(limit.reason).toBe(reason);
  });

  it("raises a slow rate by its share of 1 call/s per second when other instances send the rest", () => {
    const others = { perSecond: 12, instances: 3, seenAtMs: NOW };
    const heard = next(limitAt(4), { kind: "others", others }, NOW, settings);
    const limit = observed(heard, Array(4).fill(call(response(200))), 250);
    // A quarter of the target's sum: a quarter of the 1 call/s one instance alone would add.
    expect(limit.callsPerSecond).toBeGreaterThan(4.24);
    expect(limit.callsPerSecond).toBeLessThanOrEqual(4.25);
  });

  it("raises by the whole step again once what the others said is older than the bound", () => {
    const others = { perSecond: 12, instances: 3, seenAtMs: NOW - settings.othersMaxAgeMs - 1 };
    const heard = next(limitAt(4), { kind: "others", others }, NOW, settings);
    const limit = observed(heard, Array(4).fill(call(response(200))), 250);
    expect(limit.callsPerSecond).toBeGreaterThan(4.9);
  });

  it("raises a slow rate by at least 1 call/s per second of calls", () => {
    const limit = observed(limitAt(10), Array(10).fill(call(response(200))), 100);
    // Each call adds 1 / rate at the rate it finds, so ten of them add a little under 1.
    expect(limit.callsPerSecond).toBeGreaterThan(10.95);
    expect(limit.callsPerSecond).toBeLessThanOrEqual(11);
  });

  it("cuts from the rate actually sent when that is below the allowance", () => {
    const idle = limitAt(1_000, { previousWindowCalls: 50 });
    expect(next(idle, call(response(429)), NOW, settings).callsPerSecond).toBeCloseTo(40, 9);
  });

  it.each<[string, number, number]>([
    ["within a second of the last cut, a second overload changes nothing", 999, 80],
    ["a second after it, the next overload cuts again", 1_000, 64],
  ])("%s", (_name, laterMs, rate) => {
    // The second of the first cut sent a full second's calls at the rate, all but one admitted.
    const cut = next(limitAt(100), call(response(429)), NOW, settings);
    const noise = { ...cut.noise, tracks: cut.noise?.tracks ?? NO_TRACKS, admittedInSecond: 99 };
    const once = { ...cut, windowCalls: 100, noise };
    const twice = next(once, call(response(503)), NOW + laterMs, settings);
    expect(twice.callsPerSecond).toBeCloseTo(rate, 9);
  });

  it.each<[string, number, number]>([
    // 50 sent in the second of the first cut (to 40), `admitted` of them let through.
    ["a quota that let 20 of 50 through: cut to 20, not to 32", 20, 20],
    ["a target that refused 2 of 50: cut by a fifth, as any overload", 48, 32],
  ])("%s", (_name, admitted, rate) => {
    const second = Array.from({ length: 50 }, (_, i) => call(response(i < admitted ? 200 : 429)));
    const cut = observed(limitAt(50), second);
    expect(cut.callsPerSecond).toBeCloseTo(40, 9);
    const again = next(cut, call(response(429)), NOW + 1_000, settings);
    expect(again.callsPerSecond).toBeCloseTo(rate, 9);
  });

  it("never cuts below the floor of 1 call/s", () => {
    const cuts = Array(20).fill(call(response(429)));
    expect(observed(limitAt(3), cuts, 1_000).callsPerSecond).toBe(1);
  });

  it("at the ceiling, a healthy call is no change: the last change stays the one shown", () => {
    const cut = next(limitAt(1_000), call(response(429)), NOW, settings);
    const atCeiling = { ...cut, callsPerSecond: 1_000 };
    const later = next(atCeiling, call(response(200)), NOW + 5_000, settings);
    expect(later).toMatchObject({ reason: LimitChange.OVERLOAD, changedAtMs: NOW });
  });

  it("never raises above the ceiling", () => {
    const calls = Array(100).fill(call(response(200)));
    expect(observed(limitAt(999.9), calls, 1).callsPerSecond).toBe(1_000);
  });
});

describe("probing past the last cut", () => {
  it.each<[string, Partial<AdaptiveLimit>, number]>([
    [
      "below the rate of the last cut, one call adds a constant step's share",
      { peakPerSecond: 15 },
      10.1,
    ],
    ["just past it, the step is still the constant one", { peakPerSecond: 10 }, 10.1],
    [
      "a second past it, the step has doubled",
      { peakPerSecond: 10, probingSinceMs: NOW - 1_000 },
      10.2,
    ],
    [
      "long past it, the step is capped at half the rate",
      { peakPerSecond: 10, probingSinceMs: NOW - 9_000 },
      10.5,
    ],
  ])("%s", (_name, extra, rate) => {
    const limit = next(limitAt(10, extra), call(response(200)), NOW, settings);
    expect(limit.callsPerSecond).toBeCloseTo(rate, 9);
  });

  it("a cut remembers the rate sent and ends the probe", () => {
    const probing = limitAt(50, { peakPerSecond: 40, probingSinceMs: NOW - 5_000 });
    const cut = next(probing, call(response(429)), NOW, settings);
    expect(cut).toMatchObject({ callsPerSecond: 40, peakPerSecond: 50, probingSinceMs: undefined });
  });

  it("a Retry-After ends the probe: it starts again cautiously after the hold", () => {
    const probing = limitAt(50, { peakPerSecond: 40, probingSinceMs: NOW - 5_000 });
    const held = next(probing, call(response(200, "1")), NOW, settings);
    expect(held.probingSinceMs).toBeUndefined();
    const after = next(sendingAt(held, NOW + 1_000), call(response(200)), NOW + 1_000, settings);
    expect(after.callsPerSecond - held.callsPerSecond).toBeCloseTo(2.5 / 50, 9);
  });

  it("does not raise a rate not in use, and starts its probe again once it is", () => {
    // 50/s allowed, 10 sent in the last second: under half of it is in use.
    const idle = limitAt(50, {
      previousWindowCalls: 10,
      peakPerSecond: 40,
      probingSinceMs: NOW - 5_000,
    });
    const after = observed(idle, Array(10).fill(call(response(200))), 10);
    expect(after.callsPerSecond).toBe(50);
    expect(after.probingSinceMs).toBeUndefined();
    const used = next(sendingAt(after, NOW + 1_000), call(response(200)), NOW + 1_000, settings);
    expect(used.callsPerSecond).toBeGreaterThan(50);
  });
});

describe("Retry-After", () => {
  const date = (offsetMs: number) => new Date(NOW + offsetMs).toUTCString();
  const verdict = (retryAfterSeconds: number): AttemptResult =>
    failure(ErrorCategory.FUNCTION_ERROR, true, {
      functionAnswer: { kind: "verdict", verdict: { verdict: "retry", retryAfterSeconds } },
    });
  it.each<[string, AttemptResult, number | undefined, number | undefined]>([
    ["a 429's 1 s holds the rate without pausing calls", response(429, "1"), 1_000, undefined],
    ["a 429's 30 s also pauses the calls", response(429, "30"), 30_000, 30_000],
    ["a 503's 600 s is capped at 60 s", response(503, "600"), 60_000, 60_000],
    ["a 503's HTTP-date is read", response(503, date(10_000)), 10_000, 10_000],
    ["a 2xx's holds the rate only", response(200, "30"), 30_000, undefined],
    ["a Lambda verdict's holds the rate only", verdict(30), 30_000, undefined],
    ["a malformed one is ignored", response(429, "soon"), undefined, undefined],
  ])("%s", (_name, result, holdMs, pauseMs) => {
    const limit = next(limitAt(100), call(result), NOW, settings);
    expect(limit.holdUntilMs).toBe(holdMs === undefined ? undefined : NOW + holdMs);
    expect(allowance(limit, NOW, settings).notBeforeMs).toBe(
      pauseMs === undefined ? undefined : NOW + pauseMs,
    );
  });

  it("keeps the rate through the hold and raises it after", () => {
    const held = next(limitAt(100), call(response(200, "5")), NOW, settings);
    const during = next(held, call(response(200)), NOW + 4_999, settings);
    expect(during.callsPerSecond).toBe(held.callsPerSecond);
    const after = next(sendingAt(during, NOW + 5_000), call(response(200)), NOW + 5_000, settings);
    expect(after.callsPerSecond).toBeGreaterThan(held.callsPerSecond);
  });

  it("pauses calls until the pause ends, then allows them again", () => {
    const paused = next(limitAt(100), call(response(503, "10")), NOW, settings);
    expect(allowance(paused, NOW + 9_999, settings).notBeforeMs).toBe(NOW + 10_000);
    expect(allowance(paused, NOW + 10_000, settings).notBeforeMs).toBeUndefined();
  });

  it("keeps the later of two holds: answers of calls in flight arrive one after another", () => {
    const long = next(limitAt(100), call(response(429, "30")), NOW, settings);
    const short = next(long, call(response(429, "3")), NOW + 100, settings);
    expect(short.pauseUntilMs).toBe(NOW + 30_000);
  });
});

describe("the latency guard", () => {
  /** A limit whose baseline and recent latency are both `ms`, sending at its rate. */
  const settled = (ms: number): AdaptiveLimit =>
    limitAt(100, { latency: { baselineMs: ms, recentMs: ms } });
  const slow = (ms: number, n: number) => Array(n).fill(call(response(200, undefined, ms)));

  it("cuts the rate when latency stays above twice its baseline", () => {
    const limit = observed(settled(100), slow(400, 10), 10);
    expect(limit.callsPerSecond).toBeLessThan(100);
    expect(limit.reason).toBe(LimitChange.LATENCY);
  });

  it("is not moved by one stray slow call", () => {
    const limit = observed(settled(100), [...slow(5_000, 1), ...slow(100, 5)], 10);
    expect(limit.callsPerSecond).toBeGreaterThan(100);
  });

  it("ignores a rise of a few milliseconds however large its ratio", () => {
    const limit = observed(settled(2), slow(8, 30), 10);
    expect(limit.callsPerSecond).toBeGreaterThan(100);
  });

  it("holds, but does not cut, a rate the calls are far from using", () => {
    const idle = { ...settled(100), previousWindowCalls: 10 };
    const raised = observed(idle, slow(400, 10), 10);
    expect(raised.latency?.recentMs).toBeGreaterThan(200);
    const later = observed(raised, slow(400, 10), 10);
    expect(later.callsPerSecond).toBe(raised.callsPerSecond);
    expect(later.callsPerSecond).toBeGreaterThanOrEqual(100);
  });

  it.each([
    { case: "more calls out than at its baseline", inFlight: 5, learned: 4 },
    {
      case: "as many calls out as at its baseline (not our crowding)",
      inFlight: 3,
      learned: undefined,
    },
  ])("with raised latency and $case, allows $learned at once", ({ inFlight, learned }) => {
    const start = limitAt(100, {
      latency: { baselineMs: 100, recentMs: 100, baselineInFlight: 2 },
    });
    const slowOut = Array(10).fill({
      kind: "call",
      call: { result: response(200, undefined, 400), timeoutMs: 10_000 },
      inFlight,
    });
    const limit = observed(start, slowOut, 10);
    expect(limit.concurrencyLimit).toBe(learned);
    expect(limit.callsPerSecond).toBeGreaterThanOrEqual(100);
  });

  it("learns the baseline from healthy calls only", () => {
    const limit = observed(limitAt(100), [
      call(response(200, undefined, 80)),
      call(response(500, undefined, 9_000)),
    ]);
    expect(limit.latency).toEqual({ baselineMs: 80, recentMs: 80 });
  });
});

describe("the calls in flight a busy target can take", () => {
  const busyCall = (result: AttemptResult, inFlight: number): LimitObservation => ({
    kind: "call",
    call: { result, timeoutMs: 10_000 },
    inFlight,
  });

  it.each([
    { case: "a 503", result: response(503), learned: 4 },
    { case: "a Lambda throttle", result: failure(ErrorCategory.THROTTLED, true), learned: 4 },
    {
      case: "a timeout of a sent request",
      result: failure(ErrorCategory.TIMEOUT, true),
      learned: 4,
    },
    { case: "a 429 (a quota's answer)", result: response(429), learned: undefined },
    { case: "a 500 (the breaker's business)", result: response(500), learned: undefined },
  ])("after $case with 5 calls in flight, allows $learned at once", ({ result, learned }) => {
    const limit = observed(limitAt(50), [busyCall(result, 5)]);
    expect(allowance(limit, NOW, settings).learnedConcurrency).toBe(learned);
    if (learned !== undefined)
      expect(allowance(limit, NOW, settings).maxConcurrentCalls).toBe(learned);
  });

  it("learns nothing of its concurrency when the calls in flight are not known", () => {
    const limit = observed(limitAt(50), [call(response(503))]);
    expect(limit.concurrencyLimit).toBeUndefined();
  });

  it("never cuts below one call in flight", () => {
    const limit = observed(limitAt(50), [busyCall(response(503), 1)]);
    expect(allowance(limit, NOW, settings).maxConcurrentCalls).toBe(1);
  });

  it("grows back by one call in flight per two seconds of healthy calls", () => {
    const cut = observed(limitAt(10), [busyCall(response(503), 5)]);
    expect(cut.concurrencyLimit).toBe(4);
    // About ten calls a second: after one second not yet, after two and a bit one more.
    const healthy = (n: number) => Array.from({ length: n }, () => busyCall(response(200), 4));
    const grownAfter = (n: number) => observed({ ...cut, previousWindowCalls: 8 }, healthy(n), 100);
    expect(allowance(grownAfter(10), NOW + 1_000, settings).learnedConcurrency).toBe(4);
    expect(allowance(grownAfter(24), NOW + 2_400, settings).learnedConcurrency).toBe(5);
  });

  it.each([
    ["at its ceiling rate", 1_000],
    ["with its rate not in use", 100],
  ])("grows back its calls in flight %s, however few calls are sent", (_name, rate) => {
    const cut = observed(limitAt(rate), [busyCall(response(503), 5)]);
    expect(cut.concurrencyLimit).toBe(4);
    const healthy = Array.from({ length: 30 }, () => busyCall(response(200), 4));
    const grown = observed({ ...cut, previousWindowCalls: 8 }, healthy, 100);
    expect(grown.concurrencyLimit).toBeGreaterThan(4);
    expect(grown.callsPerSecond).toBe(rate);
  });

  it.each([
    { case: "a quota's 429 cuts the rate", first: response(503), second: response(429) },
    { case: "a 503 narrows the calls in flight", first: response(429), second: response(503) },
  ])("$case within a second of a cut of the other limit", ({ first, second }) => {
    const once = observed(limitAt(50), [busyCall(first, 10)]);
    const twice = next(once, busyCall(second, 10), NOW + 100, settings);
    expect(twice.callsPerSecond).toBe(40);
    expect(twice.concurrencyLimit).toBe(8);
  });

  it("is cut again from the calls in flight, and never raised by a cut", () => {
    const first = observed(limitAt(50), [busyCall(response(503), 10)]);
    const later = next(first, busyCall(response(503), 20), NOW + 2_000, settings);
    expect(first.concurrencyLimit).toBe(8);
    expect(later.concurrencyLimit).toBe(8);
  });
});

describe("allowance", () => {
  it("is zero while the breaker is open, and the learned rate again once it is not", () => {
    const open = observed(limitAt(40), [breaker(BreakerState.OPEN)]);
    expect(allowance(open, NOW, settings)).toMatchObject({
      callsPerSecond: 0,
      maxConcurrentCalls: 0,
      reason: LimitChange.BREAKER_OPEN,
    });
    for (const state of [BreakerState.HALF_OPEN, BreakerState.CLOSED]) {
      const back = next(open, breaker(state), NOW + 1, settings);
      expect(allowance(back, NOW + 1, settings)).toMatchObject({
        callsPerSecond: 40,
        reason: LimitChange.BREAKER_CLOSED,
      });
    }
  });

  it("holds a ceiling lowered after the limit was learned", () => {
    const lowered = adaptiveSettingsFor({ maxCallsPerSecond: 10 }, 1_000);
    expect(allowance(limitAt(500), NOW, lowered).callsPerSecond).toBe(10);
  });

  it("keeps the floor under the ceiling", () => {
    const one = adaptiveSettingsFor({ maxCallsPerSecond: 1 }, 1_000, {
      ...DEFAULT_ADAPTIVE_LIMIT_SETTINGS,
      floorPerSecond: 2,
    });
    expect(allowance(limitAt(0.5), NOW, one).callsPerSecond).toBe(1);
  });

  it.each<[string, AdaptiveLimit, number]>([
    ["the ceiling before any call was timed", limitAt(100), 100],
    [
      "rate × baseline latency × headroom once it was (Little's law)",
      limitAt(100, { latency: { baselineMs: 200, recentMs: 200 } }),
      40,
    ],
    ["at least one", limitAt(1, { latency: { baselineMs: 1, recentMs: 1 } }), 1],
    [
      "never above the ceiling",
      limitAt(1_000, { latency: { baselineMs: 1_000, recentMs: 1_000 } }),
      100,
    ],
  ])("gives a concurrency of %s", (_name, limit, concurrency) => {
    expect(allowance(limit, NOW, settings).maxConcurrentCalls).toBe(concurrency);
  });

  it("starts at the ceiling: a target declared unlimited is not slowed until it pushes back", () => {
    const unlimited = adaptiveSettingsFor({}, 1_000);
    expect(allowance(startingLimit(NOW, unlimited), NOW, unlimited)).toMatchObject({
      callsPerSecond: MAX_TARGET_LIMIT,
      maxConcurrentCalls: MAX_TARGET_LIMIT,
      reason: LimitChange.START,
    });
  });
});

/** Any call result, with the hints and timeouts that change what it says. */
const anyResult = (): fc.Arbitrary<AttemptResult> =>
  fc.oneof(
    fc.record({
      kind: fc.constant("response" as const),
      statusCode: fc.constantFrom(200, 204, 400, 404, 429, 500, 502, 503),
      retryAfter: fc.constantFrom(undefined, "0", "1", "5", "30", "600", "soon"),
      durationMs: fc.integer({ min: 0, max: 5_000 }),
    }),
    fc.record({
      kind: fc.constant("error" as const),
      category: fc.constantFrom(...Object.values(ErrorCategory)),
      requestSent: fc.boolean(),
      message: fc.constant("x"),
      durationMs: fc.integer({ min: 0, max: 30_000 }),
      beforeContact: fc.option(fc.boolean(), { nil: undefined }),
    }),
  );
const anyObservation = (): fc.Arbitrary<LimitObservation> =>
  fc.oneof(
    {
      weight: 20,
      arbitrary: fc
        .record({ result: anyResult(), timeoutMs: fc.constantFrom(100, 1_000, 30_000) })
        .map((c) => ({ kind: "call" as const, call: c })),
    },
    { weight: 1, arbitrary: fc.constantFrom(...Object.values(BreakerState)).map(breaker) },
  );
/** Observations with the gap before each, in ms. */
const aHistory = () =>
  fc.array(fc.tuple(fc.integer({ min: 0, max: 3_000 }), anyObservation()), { maxLength: 300 });
const anySettings = (): fc.Arbitrary<AdaptiveLimitSettings> =>
  fc
    .record({
      maxCallsPerSecond: fc.integer({ min: 1, max: MAX_TARGET_LIMIT }),
      maxConcurrentCalls: fc.integer({ min: 1, max: MAX_TARGET_LIMIT }),
    })
    .map((limits) => adaptiveSettingsFor(limits, 1_000));

/** Runs `history` from the starting limit, calling `check` with each limit and its time. */
const replay = (
  history: readonly (readonly [number, LimitObservation])[],
  tuned: AdaptiveLimitSettings,
  check: (limit: AdaptiveLimit, nowMs: number, before: AdaptiveLimit) => void,
): void => {
  let nowMs = NOW;
  let limit = startingLimit(nowMs, tuned);
  for (const [gapMs, observation] of history) {
    nowMs += gapMs;
    const before = limit;
    limit = next(limit, observation, nowMs, tuned);
    check(limit, nowMs, before);
  }
};

describe("adaptive limit properties", () => {
  it("allows between the floor and the ceiling, or nothing while the breaker is open", () => {
    fc.assert(
      fc.property(anySettings(), aHistory(), (tuned, history) => {
        replay(history, tuned, (limit, nowMs) => {
          const allowed = allowance(limit, nowMs, tuned);
          if (limit.breakerOpen) {
            expect(allowed.callsPerSecond).toBe(0);
            expect(allowed.maxConcurrentCalls).toBe(0);
            return;
          }
          expect(allowed.callsPerSecond).toBeGreaterThanOrEqual(tuned.floorPerSecond);
          expect(allowed.callsPerSecond).toBeLessThanOrEqual(tuned.maxCallsPerSecond);
          expect(allowed.maxConcurrentCalls).toBeGreaterThanOrEqual(1);
          expect(allowed.maxConcurrentCalls).toBeLessThanOrEqual(tuned.maxConcurrentCalls);
          if (allowed.notBeforeMs !== undefined)
            expect(allowed.notBeforeMs - nowMs).toBeLessThanOrEqual(tuned.maxHoldMs);
        });
      }),
      { numRuns: 200 },
    );
  });

  it("cuts the rate at most once a second", () => {
    fc.assert(
      fc.property(anySettings(), aHistory(), (tuned, history) => {
        const cuts: number[] = [];
        replay(history, tuned, (limit, nowMs, before) => {
          if (limit.callsPerSecond < before.callsPerSecond) cuts.push(nowMs);
        });
        for (let i = 1; i < cuts.length; i += 1)
          expect((cuts[i] ?? 0) - (cuts[i - 1] ?? 0)).toBeGreaterThanOrEqual(1_000);
      }),
      { numRuns: 200 },
    );
  });

  it("brings a steady healthy stream from the floor to the ceiling, noise and spikes included", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 5, max: 500 }),
        fc.integer(),
        (ceiling, latencyMs, seed) => {
          const tuned = adaptiveSettingsFor({ maxCallsPerSecond: ceiling }, 1_000);
          const start = { ...startingLimit(NOW, tuned), callsPerSecond: 1 };
          const partner = healthyNoisyPartner(seededRandom(seed), latencyMs);
          const drive = driveLimit(partner, {
            settings: tuned,
            startMs: NOW,
            durationMs: 120_000,
            start,
          });
          expect(allowance(drive.limit, NOW + 120_000, tuned).callsPerSecond).toBe(ceiling);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("settles around a rate-limited partner's capacity, with few 429s", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 300 }),
        fc.constantFrom(undefined, "1"),
        (capacity, retryAfter) => {
          const partner = rateLimitedPartner({ capacityPerSecond: capacity, retryAfter });
          const tuned = adaptiveSettingsFor({}, 1_000);
          const { calls } = driveLimit(partner, {
            settings: tuned,
            startMs: NOW,
            durationMs: 120_000,
          });
          const [from, to] = [NOW + 60_000, NOW + 120_000];
          const sent = ratePerSecond(calls, from, to);
          const delivered = ratePerSecond(calls, from, to, admitted);
          expect(sent).toBeGreaterThanOrEqual(0.9 * capacity);
          expect(sent).toBeLessThanOrEqual(1.1 * capacity);
          expect(delivered).toBeGreaterThanOrEqual(0.9 * capacity);
          expect((sent - delivered) / delivered).toBeLessThanOrEqual(0.05);
        },
      ),
      { numRuns: 20 },
    );
  });

  it("finds a restored partner's capacity within 12 s, at any capacity", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 1_000 }),
        fc.constantFrom(undefined, "1"),
        (capacity, retryAfter) => {
          const restoredMs = NOW + 90_000;
          const capacityAt = (atMs: number) =>
            atMs >= NOW + 45_000 && atMs < restoredMs ? capacity / 2 : capacity;
          const partner = rateLimitedPartner({ capacityPerSecond: capacityAt, retryAfter });
          const tuned = adaptiveSettingsFor({}, 1_000);
          const { calls } = driveLimit(partner, {
            settings: tuned,
            startMs: NOW,
            // To 15 s after the restore: every second the test looks at has its calls.
            durationMs: 105_000,
          });
          const second = (s: number) => restoredMs + s * 1_000;
          // Where in its saw-tooth the restore finds the rate decides the time: at most 10 s over
          // every capacity from 10 to 1 000, with and without the hint; 16 without probing, and
          // over 12 s for 162 of 284 capacities 7 apart.
          const reached = [...Array(13).keys()].find(
            (s) => ratePerSecond(calls, second(s), second(s + 1), admitted) >= 0.9 * capacity,
          );
          expect(reached).toBeLessThanOrEqual(12);
        },
      ),
      { numRuns: 20 },
    );
  });

  it("re-converges within 30 s when the partner's capacity halves and when it is restored", () => {
    const capacity = 40;
    const capacityAt = (atMs: number) =>
      atMs >= NOW + 60_000 && atMs < NOW + 120_000 ? capacity / 2 : capacity;
    const partner = rateLimitedPartner({ capacityPerSecond: capacityAt });
    const tuned = adaptiveSettingsFor({}, 1_000);
    const { calls } = driveLimit(partner, { settings: tuned, startMs: NOW, durationMs: 180_000 });
    for (const [changeMs, expected] of [
      [60_000, capacity / 2],
      [120_000, capacity],
    ] as const) {
      const from = NOW + changeMs + 30_000;
      const delivered = ratePerSecond(calls, from, from + 30_000, admitted);
      expect(delivered).toBeGreaterThanOrEqual(0.9 * expected);
      expect(ratePerSecond(calls, from, from + 30_000)).toBeLessThanOrEqual(1.1 * expected);
    }
  });
});

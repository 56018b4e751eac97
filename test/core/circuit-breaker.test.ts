import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  admit,
  type Breaker,
  type BreakerSettings,
  BreakerState,
  closedBreaker,
  DEFAULT_BREAKER_SETTINGS,
  type DeferralQueue,
  nextRelease,
  recordCall,
} from "../../lib/core/circuit-breaker.js";
import { FIXED_NOW_MS } from "../support/factories.js";

const NOW = FIXED_NOW_MS;
const settings: BreakerSettings = {
  ...DEFAULT_BREAKER_SETTINGS,
  minimumCalls: 4,
  failureRateThreshold: 0.5,
  windowMs: 60_000,
  openMs: 30_000,
  maxOpenMs: 100_000,
  halfOpenProbes: 1,
  probeWaitMs: 5_000,
};

/** The breaker after `outcomes` (true: failed), one call a millisecond from NOW. */
const callsEnded = (outcomes: readonly boolean[], start: Breaker = closedBreaker(NOW)): Breaker =>
  outcomes.reduce((b, failed, i) => recordCall(b, failed, NOW + i, settings), start);

const open = (openings = 1): Breaker => ({
  ...closedBreaker(NOW),
  state: BreakerState.OPEN,
  openings,
  reopenAtMs: NOW + 30_000,
});

describe("circuit breaker transitions", () => {
  it.each([
    ["stays closed below the minimum number of calls", [true, true, true], BreakerState.CLOSED],
    [
      "opens at the threshold once the minimum is reached",
      [true, false, true, false],
      BreakerState.OPEN,
    ],
    ["stays closed below the threshold", [true, false, false, false], BreakerState.CLOSED],
    [
      "opens on the call that crosses the threshold",
      [false, false, true, true, true],
      BreakerState.OPEN,
    ],
    ["never opens on successes alone", Array(50).fill(false), BreakerState.CLOSED],
  ] as const)("%s", (_name, outcomes, state) => {
    expect(callsEnded(outcomes).state).toBe(state);
  });

  it("starts a new window once the old one is older than windowMs", () => {
    const old = callsEnded([true, true, true]);
    const next = recordCall(old, true, NOW + settings.windowMs, settings);
    expect(next).toMatchObject({ state: BreakerState.CLOSED, calls: 1, failures: 1 });
  });

  it.each([
    [
      "an open breaker defers until its reopen time",
      open(),
      NOW + 10,
      { verdict: "defer", untilMs: NOW + 30_000 },
    ],
    [
      "an open breaker lets one probe through at its reopen time",
      open(),
      NOW + 30_000,
      { verdict: "probe" },
    ],
    ["a closed breaker lets every call through", closedBreaker(NOW), NOW, { verdict: "call" }],
    [
      "a half-open breaker with its probe out defers the others for probeWaitMs",
      { ...open(), state: BreakerState.HALF_OPEN, reopenAtMs: undefined, probesInFlight: 1 },
      NOW + 40_000,
      { verdict: "defer", untilMs: NOW + 45_000 },
    ],
  ] as const)("%s", (_name, breaker, at, expected) => {
    expect(admit(breaker, at, settings)).toMatchObject(expected);
  });

  it("closes when a probe succeeds and reopens for twice as long when it fails", () => {
    const probing = admit(open(), NOW + 30_000, settings).breaker;
    expect(probing.state).toBe(BreakerState.HALF_OPEN);

    expect(recordCall(probing, false, NOW + 30_100, settings)).toMatchObject({
      state: BreakerState.CLOSED,
      calls: 0,
      failures: 0,
      openings: 0,
    });
    expect(recordCall(probing, true, NOW + 30_100, settings)).toMatchObject({
      state: BreakerState.OPEN,
      openings: 2,
      reopenAtMs: NOW + 30_100 + 60_000,
    });
  });

  it("caps the open time at maxOpenMs however often it reopens", () => {
    const reopened = recordCall(
      { ...open(9), state: BreakerState.HALF_OPEN, probesInFlight: 1 },
      true,
      NOW,
      settings,
    );
    expect(reopened.reopenAtMs).toBe(NOW + settings.maxOpenMs);
  });

  it("lets another probe through once the outstanding one is older than probeTimeoutMs", () => {
    const stuck: Breaker = {
      ...open(),
      state: BreakerState.HALF_OPEN,
      reopenAtMs: undefined,
      probesInFlight: 1,
      changedAtMs: NOW,
    };
    expect(admit(stuck, NOW + settings.probeTimeoutMs - 1, settings).verdict).toBe("defer");
    expect(admit(stuck, NOW + settings.probeTimeoutMs, settings)).toMatchObject({
      verdict: "probe",
      breaker: { probesInFlight: 1, changedAtMs: NOW + settings.probeTimeoutMs },
    });
  });

  it("ignores a late result from a call admitted before the breaker opened", () => {
    expect(recordCall(open(), false, NOW + 5, settings)).toEqual(open());
  });
});

describe("nextRelease", () => {
  const s = { ...settings, releasePerSecond: 4 };
  const dueAfter = (untilOffsets: readonly number[]): number[] => {
    let queue: DeferralQueue | undefined;
    return untilOffsets.map((offset) => {
      const next = nextRelease(queue, NOW + offset, s);
      queue = next.queue;
      return next.dueMs - NOW;
    });
  };

  it.each([
    [
      "spaces events deferred to one reopen time at releasePerSecond",
      [0, 0, 0, 0, 0],
      [0, 250, 500, 750, 1000],
    ],
    ["spaces half-open deferrals asked for 1 ms apart", [1000, 1001, 1002], [1000, 1250, 1500]],
    ["keeps a later reopen time when the line is already past", [0, 0, 60_000], [0, 250, 60_000]],
    [
      "puts a sooner reopen time behind the events already in line",
      [5000, 5000, 1000],
      [5000, 5250, 5500],
    ],
  ])("%s", (_name, until, expected) => {
    expect(dueAfter(until)).toEqual(expected);
  });
});

describe("circuit breaker properties", () => {
  const step = fc.record({ failed: fc.boolean(), gapMs: fc.nat(40_000), asks: fc.nat(3) });

  it("never has more probes out than halfOpenProbes, and never opens for longer than maxOpenMs", () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 200 }),
        fc.integer({ min: 1, max: 3 }),
        (steps, probes) => {
          const s = { ...settings, halfOpenProbes: probes };
          let now = NOW;
          let breaker = closedBreaker(now);
          for (const { failed, gapMs, asks } of steps) {
            now += gapMs;
            let admitted = false;
            for (let i = 0; i <= asks; i += 1) {
              const admission = admit(breaker, now, s);
              breaker = admission.breaker;
              admitted ||= admission.verdict !== "defer";
              if (admission.verdict === "defer") expect(admission.untilMs).toBeGreaterThan(now);
            }
            expect(breaker.probesInFlight).toBeLessThanOrEqual(probes);
            if (admitted) breaker = recordCall(breaker, failed, now, s);
            if (breaker.state === BreakerState.OPEN)
              expect((breaker.reopenAtMs ?? 0) - now).toBeLessThanOrEqual(s.maxOpenMs);
          }
        },
      ),
    );
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  downFigures,
  healthyFigures,
  type NoisyObservation,
  type SubmittedEvent,
  versusAllHealthy,
} from "../../bench/noisy-neighbour/noisy-report.js";
import { TargetKind } from "../../bench/noisy-neighbour/noisy-targets.js";
import type { ReceiverCall } from "../../bench/support/seeded-receiver.js";

const event = (eventId: string, kind: TargetKind, submittedAt: number): SubmittedEvent => ({
  eventId,
  kind,
  submittedAt,
});

const answered = (...startedAt: number[]): ReceiverCall[] =>
  startedAt.map((at, callIndex) => ({ callIndex, startedAt: at, status: 200 }));

const observation = (overrides: Partial<NoisyObservation>): NoisyObservation => ({
  events: [],
  deliveredAt: new Map(),
  calls: new Map(),
  callsWhileDown: [],
  attemptsCharged: null,
  ...overrides,
});

describe("healthyFigures", () => {
  it("measures latency from the send to the first 200 of healthy events only", () => {
    const figures = healthyFigures([
      observation({
        events: [
          event("h1", TargetKind.HEALTHY, 0),
          event("h2", TargetKind.HEALTHY, 100),
          event("s1", TargetKind.SLOW, 0),
          event("d1", TargetKind.DOWN, 0),
        ],
        deliveredAt: new Map([
          ["h1", 40],
          ["h2", 1_100],
          ["s1", 9_000],
          ["d1", 60_000],
        ]),
      }),
    ]);
    expect(figures).toEqual({
      events: 2,
      delivered: 2,
      p50Ms: 40,
      p99Ms: 1_000,
      // 2 events from the first send (0) to the last healthy delivery (1 100 ms).
      eventsPerSecond: 1.818,
    });
  });

  it("leaves an undelivered healthy event out of the latencies but in the count", () => {
    const figures = healthyFigures([
      observation({
        events: [event("h1", TargetKind.HEALTHY, 0), event("h2", TargetKind.HEALTHY, 0)],
        deliveredAt: new Map([["h1", 500]]),
      }),
    ]);
    expect(figures).toMatchObject({ events: 2, delivered: 1, p50Ms: 500, p99Ms: 500 });
  });

  it("reports no latency and no rate when nothing was delivered", () => {
    const figures = healthyFigures([observation({ events: [event("h1", TargetKind.HEALTHY, 0)] })]);
    expect(figures).toEqual({
      events: 1,
      delivered: 0,
      p50Ms: null,
      p99Ms: null,
      eventsPerSecond: null,
    });
  });

  it("pools the rounds: latencies together, the rate over their summed spans", () => {
    const round = (id: string, tookMs: number) =>
      observation({
        events: [event(id, TargetKind.HEALTHY, 0)],
        deliveredAt: new Map([[id, tookMs]]),
      });
    expect(healthyFigures([round("a", 100), round("b", 300)])).toEqual({
      events: 2,
      delivered: 2,
      p50Ms: 100,
      p99Ms: 300,
      eventsPerSecond: 5,
    });
  });

  it("never reports a p99 below the p50", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(10_000), fc.nat(10_000)), { minLength: 1, maxLength: 50 }),
        (pairs) => {
          const events = pairs.map(([sent], i) => event(`h${i}`, TargetKind.HEALTHY, sent));
          const deliveredAt = new Map(pairs.map(([sent, took], i) => [`h${i}`, sent + took]));
          const figures = healthyFigures([observation({ events, deliveredAt })]);
          expect(figures.p99Ms ?? 0).toBeGreaterThanOrEqual(figures.p50Ms ?? 0);
        },
      ),
    );
  });
});

describe("downFigures", () => {
  const outage = { startedAt: 1_000, recoveredAt: 31_000 };

  it("is null for a run without an outage", () => {
    expect(downFigures([observation({})])).toBeNull();
  });

  it.each([
    {
      name: "counts only the calls inside the outage, per minute of it",
      callsWhileDown: [500, 1_000, 2_000, 30_999, 31_000],
      expected: { callsWhileDown: 3, callsPerMinuteWhileDown: 6 },
    },
    {
      name: "reports no calls for a target a breaker kept everyone off",
      callsWhileDown: [],
      expected: { callsWhileDown: 0, callsPerMinuteWhileDown: 0 },
    },
  ])("$name", ({ callsWhileDown, expected }) => {
    expect(downFigures([observation({ outage, callsWhileDown })])).toMatchObject({
      outageMs: 30_000,
      ...expected,
    });
  });

  it("tells events delivered after the recovery from those sent after it and those lost", () => {
    const figures = downFigures([
      observation({
        outage,
        events: [
          event("d1", TargetKind.DOWN, 1_000),
          event("d2", TargetKind.DOWN, 2_000),
          event("d3", TargetKind.DOWN, 3_000),
          event("d4", TargetKind.DOWN, 32_000),
          event("h1", TargetKind.HEALTHY, 1_000),
        ],
        deliveredAt: new Map([
          ["d1", 32_500],
          ["d2", 36_500],
          ["d4", 32_010],
          ["h1", 1_010],
        ]),
        calls: new Map([
          ["d1", answered(32_500)],
          ["d2", answered(36_500)],
          ["d4", answered(32_000)],
        ]),
        callsWhileDown: [1_000, 2_000, 3_000, 4_000],
      }),
    ]);
    expect(figures).toMatchObject({
      events: 4,
      eventsBeforeRecovery: 3,
      deliveredAfterRecovery: 2,
      undelivered: 1,
      drainMs: 5_500,
      // 32 000 and 32 500 fall in the second second after the recovery, 36 500 in the sixth.
      peakCallsPerSecondAfterRecovery: 2,
    });
  });

  it.each([
    {
      name: "a contender that keeps a count (Ricochet's records) is charged what it counted",
      attemptsCharged: 5,
      expected: { attemptsCharged: 5, attemptsChargedPerEvent: 2.5 },
    },
    {
      name: "a redelivery consumer is charged one receive per call, up or down",
      attemptsCharged: null,
      expected: { attemptsCharged: 4, attemptsChargedPerEvent: 2 },
    },
  ])("$name", ({ attemptsCharged, expected }) => {
    const figures = downFigures([
      observation({
        outage,
        attemptsCharged,
        events: [event("d1", TargetKind.DOWN, 1_000), event("d2", TargetKind.DOWN, 2_000)],
        callsWhileDown: [1_000, 2_000, 7_000],
        calls: new Map([["d1", answered(31_500)]]),
        deliveredAt: new Map([["d1", 31_500]]),
      }),
    ]);
    expect(figures).toMatchObject(expected);
  });
});

it("sums the down target's counts over the rounds and keeps the worst drain and peak", () => {
  const round = (id: string, deliveredAt: number, calls: number[]) =>
    observation({
      outage: { startedAt: 0, recoveredAt: 30_000 },
      events: [event(id, TargetKind.DOWN, 0)],
      callsWhileDown: calls,
      calls: new Map([[id, answered(deliveredAt)]]),
      deliveredAt: new Map([[id, deliveredAt]]),
    });
  expect(
    downFigures([round("d1", 31_000, [1_000, 2_000]), round("d2", 34_000, [5_000])]),
  ).toMatchObject({
    events: 2,
    outageMs: 60_000,
    callsWhileDown: 3,
    callsPerMinuteWhileDown: 3,
    attemptsCharged: 5,
    deliveredAfterRecovery: 2,
    drainMs: 4_000,
    peakCallsPerSecondAfterRecovery: 1,
  });
});

describe("versusAllHealthy", () => {
  const base = { events: 8, delivered: 8, p50Ms: 20, p99Ms: 100, eventsPerSecond: 10 };

  it.each([
    ["the same figures", base, { p50: 1, p99: 1, eventsPerSecond: 1 }],
    [
      "a slower tail",
      { ...base, p50Ms: 30, p99Ms: 151, eventsPerSecond: 9 },
      { p50: 1.5, p99: 1.51, eventsPerSecond: 0.9 },
    ],
    [
      "nothing delivered",
      { ...base, delivered: 0, p50Ms: null, p99Ms: null, eventsPerSecond: null },
      { p50: null, p99: null, eventsPerSecond: null },
    ],
  ])("divides each figure by the all-healthy one: %s", (_, scenario, expected) => {
    expect(versusAllHealthy(scenario, base)).toEqual(expected);
  });

  it("has no ratio against an all-healthy run with no figure", () => {
    const empty = { events: 8, delivered: 0, p50Ms: null, p99Ms: null, eventsPerSecond: null };
    expect(versusAllHealthy(base, empty)).toEqual({ p50: null, p99: null, eventsPerSecond: null });
  });
});

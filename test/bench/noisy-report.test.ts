import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareScenario,
  downFigures,
  healthyFigures,
  type NoisyObservation,
  type SubmittedEvent,
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

describe("compareScenario", () => {
  const round = (healthyP99Ms: number | null, downCallsPerMinute: number | null) => ({
    healthyP99Ms,
    downCallsPerMinute,
  });
  const twins = [["subjectAA", "subject"]] as const;
  const compare = (perRound: Record<string, ReturnType<typeof round>[]>) =>
    compareScenario({
      subject: "subject",
      twins,
      perRound,
      pooled: Object.fromEntries(
        Object.entries(perRound).map(([name, rounds]) => [name, rounds[0] ?? round(null, null)]),
      ),
    });

  it("calls a difference only outside the A/A band, and leaves the subject's twin out", () => {
    const result = compare({
      subject: [round(100, 20), round(100, 20)],
      // The same code measured 10% apart: the band is 1/1.1–1.1.
      subjectAA: [round(110, 22), round(100, 20)],
      slower: [round(400, 200), round(300, 100)],
      close: [round(105, 21), round(105, 21)],
    });
    expect(result.noise.healthyP99.band?.high).toBeCloseTo(1.1, 6);
    expect(Object.keys(result.versus)).toEqual(["slower", "close"]);
    expect(result.versus.slower).toMatchObject({
      healthyP99: { median: 3.5, min: 3, max: 4 },
      healthyP99Verdict: "faster",
      downCallsPerMinute: { median: 0.15, min: 0.1, max: 0.2 },
      downCallsVerdict: "fewer",
    });
    expect(result.versus.close).toMatchObject({
      healthyP99Verdict: "within noise",
      downCallsVerdict: "within noise",
    });
    expect(result.claims).toEqual({ healthyP99Lowest: true, downCallsPerMinuteLowest: true });
  });

  it("reads a higher p99 and more calls than the other's as slower and more", () => {
    const result = compare({
      subject: [round(300, 60)],
      subjectAA: [round(300, 60)],
      other: [round(100, 20)],
    });
    expect(result.versus.other).toMatchObject({
      healthyP99Verdict: "slower",
      downCallsVerdict: "more",
    });
    expect(result.claims).toEqual({ healthyP99Lowest: false, downCallsPerMinuteLowest: false });
  });

  it("gives no verdict without an A/A ratio, and pairs only rounds where both have a figure", () => {
    const result = compare({
      subject: [round(100, 0), round(null, 10)],
      subjectAA: [round(null, null), round(null, null)],
      other: [round(200, 40), round(300, 50)],
    });
    expect(result.noise.healthyP99.band).toBeNull();
    expect(result.versus.other).toMatchObject({
      healthyP99: { median: 2, min: 2, max: 2 },
      healthyP99Verdict: null,
      downCallsPerMinute: { median: 0.1, min: 0, max: 0.2 },
      downCallsVerdict: null,
    });
  });
});

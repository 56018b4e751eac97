import { describe, expect, it } from "vitest";
import {
  capacityPerSecond,
  latencyAt,
  type SaturatingCall,
  SaturatingTarget,
  startSaturatingPartners,
} from "../../bench/saturating/partners.js";
import { DEFAULT_SATURATING_SETTINGS, plannedTargets } from "../../bench/saturating/saturating.js";
import { pooledFigures, runFigures } from "../../bench/saturating/saturating-figures.js";
import { saturatingMarkdown } from "../../bench/saturating/saturating-table.js";
import { ADAPTIVE_SUBJECT, ADAPTIVE_TWINS } from "../../bench/support/adaptive-contenders.js";

const SHAPE = { capacity: 4, baseLatencyMs: 100, latencyAtCapacity: 3, healthyLatencyMs: 5 };

describe("the saturating partner's answer time", () => {
  it.each([
    { inFlight: 1, ms: 100 },
    { inFlight: 2, ms: 167 },
    { inFlight: 4, ms: 300 },
  ])("takes $ms ms with $inFlight calls in flight", ({ inFlight, ms }) => {
    expect(latencyAt(inFlight, SHAPE)).toBe(ms);
  });

  it("can answer at most capacity calls per longest answer time", () => {
    expect(capacityPerSecond(SHAPE)).toBeCloseTo(13.33, 2);
  });

  it("sheds the call past its capacity with a 503 at once and answers the rest 200, slower", async () => {
    const partners = await startSaturatingPartners(SHAPE);
    try {
      const call = (url: string, id: string) =>
        fetch(`${url}/${id}`, { method: "POST", body: "{}" }).then((r) => r.status);
      const statuses = await Promise.all(
        Array.from({ length: SHAPE.capacity + 1 }, (_, i) => call(partners.partnerUrl, `p${i}`)),
      );
      expect(statuses.filter((s) => s === 503)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(SHAPE.capacity);
      expect(await call(partners.healthyUrl, "h0")).toBe(200);
      const byTarget = (target: SaturatingTarget) =>
        partners.log.filter((c) => c.target === target).length;
      expect(byTarget(SaturatingTarget.PARTNER)).toBe(SHAPE.capacity + 1);
      expect(byTarget(SaturatingTarget.HEALTHY)).toBe(1);
      const slowest = Math.max(
        ...partners.log.filter((c) => c.status === 200).map((c) => c.answeredAt - c.at),
      );
      expect(slowest).toBeGreaterThanOrEqual(latencyAt(SHAPE.capacity, SHAPE) - 5);
    } finally {
      await partners.stop();
    }
  });
});

describe("the saturating contenders", () => {
  it("sends one event in healthyEvery to the neighbour and the rest to the partner", () => {
    const planned = plannedTargets("r", { events: 8, healthyEvery: 4 });
    expect(
      planned.filter((p) => p.target === SaturatingTarget.HEALTHY).map((p) => p.eventId),
    ).toEqual(["r-0", "r-4"]);
  });

  it("offers the partner more than it can answer, so it has a backlog while events are sent", () => {
    const s = DEFAULT_SATURATING_SETTINGS;
    const toPartnerPerSecond = s.submitRate * (1 - 1 / s.healthyEvery);
    expect(toPartnerPerSecond).toBeGreaterThan(capacityPerSecond(s.shape));
  });
});

describe("the saturating scenario's figures", () => {
  const call = (
    eventId: string,
    target: SaturatingTarget,
    answeredAt: number,
    status: number,
  ): SaturatingCall => ({ eventId, target, at: answeredAt - 50, answeredAt, status });
  const run = {
    log: [
      call("p1", SaturatingTarget.PARTNER, 100, 503),
      call("p1", SaturatingTarget.PARTNER, 1_100, 200),
      call("p2", SaturatingTarget.PARTNER, 500, 200),
      call("h1", SaturatingTarget.HEALTHY, 60, 200),
    ],
    submittedAt: new Map([
      ["p1", 0],
      ["p2", 0],
      ["p3", 0],
      ["h1", 0],
    ]),
    deliveredAt: new Map([
      ["p1", 1_100],
      ["p2", 500],
      ["h1", 60],
    ]),
    targetOf: new Map([
      ["p1", SaturatingTarget.PARTNER],
      ["p2", SaturatingTarget.PARTNER],
      ["p3", SaturatingTarget.PARTNER],
      ["h1", SaturatingTarget.HEALTHY],
    ]),
    windowStartMs: 0,
    windowEndMs: 1_000,
    wallMs: 2_000,
    failedBatches: 0,
  };

  it("counts the partner's 503s and calls per partner delivery, and the neighbour's latency apart", () => {
    expect(runFigures(run, SHAPE)).toMatchObject({
      overloadsPerDelivered: 0.5,
      attemptsPerDelivered: 1.5,
      healthyP99Ms: 60,
      partnerP50Ms: 500,
      delivered: 3,
      deadLettered: 1,
    });
  });

  it("counts as goodput only the partner's 200s answered inside the window", () => {
    // One 200 in a 1 s window, of 13.33 the partner could give.
    expect(runFigures(run, SHAPE).goodputShare).toBeCloseTo(1 / capacityPerSecond(SHAPE), 3);
  });

  it("pools rounds' calls and deliveries, and averages their goodput", () => {
    const renamed = (suffix: string) => {
      const id = (eventId: string) => `${eventId}${suffix}`;
      const keys = <V>(map: ReadonlyMap<string, V>) =>
        new Map([...map].map(([k, v]) => [id(k), v]));
      return {
        ...run,
        log: run.log.map((c) => ({ ...c, eventId: id(c.eventId) })),
        submittedAt: keys(run.submittedAt),
        deliveredAt: keys(run.deliveredAt),
        targetOf: keys(run.targetOf),
      };
    };
    const pooled = pooledFigures([renamed("a"), renamed("b")], SHAPE);
    expect(pooled).toMatchObject({ attemptsPerDelivered: 1.5, delivered: 6, deadLettered: 2 });
    expect(pooled.goodputShare).toBe(runFigures(run, SHAPE).goodputShare);
  });

  it("renders every contender's column and the A/A band it is read against", () => {
    const figures = runFigures(run, SHAPE);
    const entry = {
      setup: {} as never,
      pooled: figures,
      perRound: [figures],
      failedBatches: 0,
      wallMs: 0,
    };
    const markdown = saturatingMarkdown({
      settings: { ...DEFAULT_SATURATING_SETTINGS, rounds: 5, capacityPerSecond: 13.3 },
      order: [],
      subject: ADAPTIVE_SUBJECT,
      twins: ADAPTIVE_TWINS,
      contenders: { [ADAPTIVE_SUBJECT]: entry, ricochet: entry },
      ratios: { ricochet: { healthyP99Ms: 1.25, overloadsPerDelivered: 0, goodputShare: 0.5 } },
      noiseBand: {
        healthyP99Ms: { low: 0.9, high: 1.1 },
        overloadsPerDelivered: null,
        goodputShare: null,
      },
    });
    expect(markdown).toContain(`| figure | ${ADAPTIVE_SUBJECT} | ricochet |`);
    expect(markdown).toContain(
      "| ricochetAdaptive ÷ contender, healthy neighbour p99 (median of rounds) | 1 | 1.25 |",
    );
    expect(markdown).toContain("healthy p99 0.9–1.1");
  });
});

import { describe, expect, it } from "vitest";
import { rateAt } from "../../bench/rate-limited/partner.js";
import {
  DEFAULT_RATE_LIMITED_SETTINGS,
  phasesOf,
  rateSteps,
  runFigures,
} from "../../bench/rate-limited/rate-limited.js";
import { partnerKey } from "../../bench/support/adaptive-contenders.js";
import { rotated } from "../../bench/support/paired-rounds.js";
import { naturalTargetKey } from "../../lib/core/target-key.js";

describe("the rate-limited partner's schedule", () => {
  const steps = rateSteps({ fullRate: 20, phaseMs: 5_000 });

  it.each([
    { elapsedMs: 0, rate: 20 },
    { elapsedMs: 4_999, rate: 20 },
    { elapsedMs: 5_000, rate: 10 },
    { elapsedMs: 9_999, rate: 10 },
    { elapsedMs: 10_000, rate: 20 },
    { elapsedMs: 60_000, rate: 20 },
  ])(
    "admits $rate calls/s $elapsedMs ms in: full, halved, then restored",
    ({ elapsedMs, rate }) => {
      expect(rateAt(steps, elapsedMs)).toBe(rate);
    },
  );

  it("measures each phase at the rate the partner admits then", () => {
    const phases = phasesOf(1_000, { fullRate: 20, phaseMs: 5_000, restoredMs: 4_000 });
    expect(phases.map((p) => [p.name, p.startMs, p.endMs, p.rate])).toEqual([
      ["full", 1_000, 6_000, 20],
      ["halved", 6_000, 11_000, 10],
      ["restored", 11_000, 15_000, 20],
    ]);
  });
});

describe("the rate-limited contenders", () => {
  it("declares static limits under the key Ricochet keeps the partner's limits under", () => {
    const baseUrl = "http://127.0.0.1:43210";
    expect(partnerKey(baseUrl)).toBe(naturalTargetKey({ type: "http", url: `${baseUrl}/e-1` }));
  });

  it("gives each contender every place once over as many rounds as contenders", () => {
    const names = ["a", "b", "c", "d", "e"];
    const orders = names.map((_, round) => rotated(names, round));
    for (const name of names) {
      expect(new Set(orders.map((order) => order.indexOf(name))).size).toBe(names.length);
    }
  });

  it("leaves every event deliverable within its attempts at the partner's pace", () => {
    const s = DEFAULT_RATE_LIMITED_SETTINGS;
    // The partner admits fullRate, half of it, then fullRate again (restored, and after): the
    // last event is admitted once the phases' capacity has reached the number of events.
    const fullPhases = (s.fullRate * (s.phaseMs + s.restoredMs)) / 1000;
    const halvedPhase = ((s.fullRate / 2) * s.phaseMs) / 1000;
    const afterPhasesSeconds = Math.max(0, s.events - fullPhases - halvedPhase) / s.fullRate;
    const lastDueSeconds = (2 * s.phaseMs + s.restoredMs) / 1000 + afterPhasesSeconds;
    const windowSeconds = Array.from({ length: s.retry.maxAttempts - 1 }, (_, k) =>
      Math.min(s.retry.baseDelaySeconds * s.retry.multiplier ** k, s.retry.maxDelaySeconds),
    ).reduce((a, b) => a + b, 0);
    expect(windowSeconds).toBeGreaterThan(2 * lastDueSeconds);
  });
});

describe("runFigures", () => {
  it("counts dead letters as the events never answered 200", () => {
    const figures = runFigures({
      log: [
        { eventId: "a", at: 100, status: 429 },
        { eventId: "a", at: 1_100, status: 200 },
      ],
      submittedAt: new Map([
        ["a", 0],
        ["b", 0],
      ]),
      deliveredAt: new Map([["a", 1_100]]),
      phases: phasesOf(0, { fullRate: 2, phaseMs: 1_000, restoredMs: 1_000 }),
      wallMs: 3_000,
      failedBatches: 0,
    });
    expect(figures).toMatchObject({
      delivered: 1,
      deadLettered: 1,
      refusalsPerDelivered: 1,
      attemptsPerDelivered: 2,
      p50Ms: 1_100,
    });
  });
});

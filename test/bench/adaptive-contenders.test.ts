import { describe, expect, it } from "vitest";
import { DEFAULT_SATURATING_SETTINGS } from "../../bench/saturating/saturating.js";
import {
  ADAPTIVE_SUBJECT,
  ADAPTIVE_TWINS,
  adaptiveContenders,
  compareContenders,
} from "../../bench/support/adaptive-contenders.js";

describe("the adaptive-limits scenarios' contenders", () => {
  const contenders = adaptiveContenders({ maxConcurrentCalls: 4 });

  it("are the subject, its A/A twin, static limits, no limits and Powertools", () => {
    const names = contenders.map((c) => c.name);
    expect(names).toEqual([
      ADAPTIVE_SUBJECT,
      "ricochetAdaptiveAA",
      "ricochetStatic",
      "ricochet",
      "powertools",
    ]);
    for (const pair of ADAPTIVE_TWINS) for (const name of pair) expect(names).toContain(name);
  });

  it("divides the subject's rounds by each contender's, and bands the twin against the subject", () => {
    const rounds = (values: number[]) => values.map((x) => ({ x, failedBatches: 0, wallMs: 1 }));
    const runs = new Map([
      [ADAPTIVE_SUBJECT, rounds([2, 2])],
      ["ricochetAdaptiveAA", rounds([2, 2.5])],
      ["ricochet", rounds([1, 1])],
    ]);
    const compared = compareContenders({
      contenders: contenders.filter((c) => runs.has(c.name)),
      runs,
      concurrency: 10,
      retry: DEFAULT_SATURATING_SETTINGS.retry,
      figuresOf: (run) => run.x,
      pooledOf: (own) => own.reduce((sum, run) => sum + run.x, 0),
      ratioFigures: { x: (f: number) => f },
    });
    expect(compared.ratios.ricochet).toEqual({ x: 2 });
    expect(compared.noiseBand.x).toEqual({ low: 0.8, high: 1.25 });
    expect(compared.contenders[ADAPTIVE_SUBJECT]?.pooled).toBe(4);
  });
});

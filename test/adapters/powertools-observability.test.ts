import { afterEach, describe, expect, it, vi } from "vitest";
import { EmbeddedMetrics } from "../../lib/adapters/powertools-observability.js";
import { MetricName, TARGET_DIMENSION } from "../../lib/contract/metric-names.js";

/** The EMF lines written while `run` runs, parsed. */
const emfLines = (run: () => void): Record<string, unknown>[] => {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return lines
    .flatMap((chunk) => chunk.split("\n"))
    .filter((line) => line.includes("_aws"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
};

const dimensionsOf = (line: Record<string, unknown>): string[] =>
  (line._aws as { CloudWatchMetrics: { Dimensions: string[][] }[] }).CloudWatchMetrics.flatMap(
    (m) => m.Dimensions.flat(),
  );

afterEach(() => {
  vi.restoreAllMocks();
});

describe("EmbeddedMetrics", () => {
  it("writes per-target counts on lines of their own, with the target dimension, and the rest without it", () => {
    const metrics = new EmbeddedMetrics("RicochetTest");
    metrics.count(MetricName.DELIVERED, 3);
    metrics.countForTarget(MetricName.DELIVERED, "group:acme", 2);
    metrics.countForTarget(MetricName.DELIVERED, "other", 1);

    const lines = emfLines(() => metrics.flush());

    const targeted = lines.filter((line) => dimensionsOf(line).includes(TARGET_DIMENSION));
    expect(
      targeted.map((line) => [line[TARGET_DIMENSION], line[MetricName.DELIVERED]]).sort(),
    ).toEqual([
      ["group:acme", 2],
      ["other", 1],
    ]);
    const shared = lines.filter((line) => !dimensionsOf(line).includes(TARGET_DIMENSION));
    expect(shared.map((line) => line[MetricName.DELIVERED])).toEqual([3]);
    expect(emfLines(() => metrics.flush())).toEqual([]);
  });
});

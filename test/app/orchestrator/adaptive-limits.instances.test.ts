import { describe, expect, it } from "vitest";
import { adaptiveSettingsFor } from "../../../lib/core/adaptive-limit.js";
import { seededRandom } from "../../../lib/core/random.js";
import { MAX_TARGET_LIMIT } from "../../../lib/core/target-settings.js";
import {
  type InstanceCall,
  learnedRates,
  runInstancesAgainstPartner,
} from "../../support/instances-against-partner.js";
import { randomlyRefusingPartner, rateLimitedPartner } from "../../support/simulated-partner.js";

/*
 * Adaptive limits learned on 1, 2 and 10 instances at once (issue #35), each learning from its
 * own calls and, as deployed, hearing what the others hold through the target's item, sending
 * twice a token-bucket partner's capacity C between them for two minutes. Measured over the
 * second minute; the figures are in docs/design-notes.md.
 */

const MEASURED_FROM_MS = 60_000;
const DURATION_MS = 120_000;

const isOk = (call: InstanceCall) =>
  call.result.kind === "response" && call.result.statusCode < 300;

/** The 95th percentile of `values`. */
const p95 = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] ?? Number.NaN;

const measure = async (instances: number, capacity: number, shared = true) => {
  const outcome = await runInstancesAgainstPartner({
    instances,
    partner: rateLimitedPartner({ capacityPerSecond: capacity }),
    demandPerSecond: 2 * capacity,
    settings: adaptiveSettingsFor({}, 1_000),
    durationMs: DURATION_MS,
    random: seededRandom(instances * 1_000 + capacity),
    shared,
  });
  const measured = outcome.calls.filter((call) => call.atMs >= MEASURED_FROM_MS);
  const delivered = measured.filter(isOk).length;
  const seconds = (DURATION_MS - MEASURED_FROM_MS) / 1_000;
  const measuredViews = outcome.views.filter((second) => second.atMs >= MEASURED_FROM_MS);
  // Averaged over the measured minute: a saw-tooth read at one instant is anywhere between its
  // cut (a fifth below its peak) and its peak.
  const summedRate =
    measuredViews.length === 0
      ? learnedRates(outcome, MAX_TARGET_LIMIT).reduce((a, b) => a + b, 0)
      : measuredViews.reduce((sum, second) => sum + second.summed, 0) / measuredViews.length;
  const disagreement = measuredViews.flatMap((second) =>
    second.views.map((view) => Math.abs(view / second.summed - 1)),
  );
  return {
    goodputShare: delivered / seconds / capacity,
    tooManyPerDelivered: (measured.length - delivered) / delivered,
    summedRateShare: summedRate / capacity,
    disagreementP95: disagreement.length === 0 ? 0 : p95(disagreement),
  };
};

describe("adaptive limits learned on several instances at once", () => {
  it.each([
    // instances, C, 429s per delivered at most, summed learned rates within (share of C)
    [1, 20, 0.05, 0.15],
    [1, 50, 0.05, 0.15],
    [1, 200, 0.05, 0.15],
    [2, 20, 0.05, 0.15],
    [2, 50, 0.05, 0.15],
    [2, 200, 0.05, 0.15],
    [10, 200, 0.05, 0.15],
    // Each instance's share here is 2 and 5 calls/s, and an overload moment reaches only the
    // instances that sent a call into it, so the sum is cut by less than one instance's cut
    // (a finding, docs/design-notes.md).
    [10, 50, 0.1, 0.2],
    [10, 20, 0.15, 0.6],
  ])(
    "%i instance(s) against a partner taking %i calls/s: nine tenths of it delivered, at most %d 429s per delivery",
    async (instances, capacity, most429s, rateTolerance) => {
      const figures = await measure(instances, capacity);
      expect(figures.goodputShare).toBeGreaterThanOrEqual(0.9);
      expect(figures.tooManyPerDelivered).toBeLessThanOrEqual(most429s);
      expect(Math.abs(figures.summedRateShare - 1)).toBeLessThanOrEqual(rateTolerance);
    },
  );

  it.each([2, 10])(
    "%i instances agree on the target's summed rate within a quarter, 19 seconds in 20",
    async (instances) => {
      const { disagreementP95 } = await measure(instances, 50);
      expect(disagreementP95).toBeLessThanOrEqual(0.25);
    },
  );

  it("ten instances hearing each other spend under half the 429s of ten learning alone", async () => {
    const alone = await measure(10, 20, false);
    const shared = await measure(10, 20);
    expect(shared.tooManyPerDelivered).toBeLessThan(alone.tooManyPerDelivered / 2);
  });

  // Pooled, the instances' counts learn the noise within the first minute; on each instance's
  // own counts alone, 10 instances delivered a median of 129 of 150 events/s in it at 10 %.
  // The median of five seeds: whether a noise is learned early or late turns on a few calls, and
  // one seed in five can fall far below the others (docs/design-notes.md).
  it.each([0.01, 0.05, 0.1])(
    "ten instances sharing a partner that refuses %d of calls at random keep up within a minute",
    async (share) => {
      const demandPerSecond = 150;
      const delivered: number[] = [];
      for (const seed of [7, 8, 9, 10, 11]) {
        const outcome = await runInstancesAgainstPartner({
          instances: 10,
          partner: randomlyRefusingPartner(seededRandom(seed), share),
          demandPerSecond,
          settings: adaptiveSettingsFor({ maxCallsPerSecond: 200 }, 1_000),
          durationMs: MEASURED_FROM_MS,
          random: seededRandom(10_000 + seed),
          shared: true,
        });
        delivered.push(outcome.calls.filter(isOk).length / (MEASURED_FROM_MS / 1_000));
      }
      const median = [...delivered].sort((a, b) => a - b)[2] ?? 0;
      expect(median).toBeGreaterThanOrEqual(0.9 * demandPerSecond);
    },
  );
});

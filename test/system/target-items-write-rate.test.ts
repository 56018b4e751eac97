import { describe, expect, it } from "vitest";
import { createTargetBreakers } from "../../lib/app/orchestrator/target-breakers.js";
import { createTargetLimiter } from "../../lib/app/orchestrator/target-limits.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import { silentLog } from "../../lib/core/observability.js";
import type { TargetLimitsStore, TargetStateStore } from "../../lib/core/ports.js";
import { seededRandom } from "../../lib/core/random.js";
import { rateWindowOf } from "../../lib/core/target-limits.js";
import { createMemoryTargetLimitsStore } from "../simulation/memory-target-limits-store.js";
import { createMemoryTargetStateStore } from "../simulation/memory-target-state-store.js";
import { FIXED_NOW_MS } from "../support/factories.js";

/*
 * Issue #35: the writes per second on one target's shared items at scale, which cannot be run
 * here, simulated with the real breakers and limiter over the stores' in-memory twins. Many
 * instances call one target at a steady total rate, a tenth of the calls failing (below the
 * default breaker's threshold, so it stays closed: the busiest case for its item), the target declaring
 * a rate limit above the demand (so its counter is written and nothing is turned away). Every
 * write counts one write unit per aligned second of virtual time; DynamoDB takes about 1 000
 * write units a second on one item.
 */

const KEY = "http:https://partner.example:443";
const ITEM_WRITE_UNITS_PER_SECOND = 1_000;

/** The busiest second's writes to each store: every method that writes counts one. */
const countingStores = (clock: () => number) => {
  const perSecond = { breaker: new Map<number, number>(), rate: new Map<number, number>() };
  /** Counts one write into `writes`' current second, then makes it. */
  const counted = <T>(writes: Map<number, number>, write: () => T): T => {
    const second = rateWindowOf(clock());
    writes.set(second, (writes.get(second) ?? 0) + 1);
    return write();
  };
  const state = createMemoryTargetStateStore();
  const breakerStore: TargetStateStore = {
    ...state,
    countFailure: (request) => counted(perSecond.breaker, () => state.countFailure(request)),
    replace: (request) => counted(perSecond.breaker, () => state.replace(request)),
    addDeferrals: (...args) => counted(perSecond.breaker, () => state.addDeferrals(...args)),
  };
  const limits = createMemoryTargetLimitsStore();
  const limitsStore: TargetLimitsStore = {
    ...limits,
    countCall: (...args) => counted(perSecond.rate, () => limits.countCall(...args)),
  };
  /** The busiest second's writes, over the whole run or from its second second on. */
  const busiest = (writes: Map<number, number>, fromMs: number) =>
    Math.max(0, ...[...writes].filter(([second]) => second >= fromMs).map(([, count]) => count));
  const firstSecond = rateWindowOf(clock());
  return {
    breakerStore,
    limitsStore,
    busiest: () => ({
      breaker: busiest(perSecond.breaker, firstSecond),
      rate: busiest(perSecond.rate, firstSecond),
      steadyRate: busiest(perSecond.rate, firstSecond + 1_000),
    }),
  };
};

/**
 * `instances` instances making `callsPerSecond` calls between them for `seconds` seconds, the
 * target declaring twice that as its rate limit, or none.
 */
const simulate = async (
  instances: number,
  callsPerSecond: number,
  seconds: number,
  declaresLimit: boolean,
) => {
  const time = { nowMs: FIXED_NOW_MS };
  const clock = () => time.nowMs;
  const stores = countingStores(clock);
  const random = seededRandom(instances);
  const fleet = Array.from({ length: instances }, (_, i) => ({
    breakers: createTargetBreakers({
      store: stores.breakerStore,
      settings: DEFAULT_BREAKER_SETTINGS,
      clock,
      log: silentLog,
    }),
    limits: createTargetLimiter({
      store: stores.limitsStore,
      limitsFor: () => (declaresLimit ? { maxCallsPerSecond: 2 * callsPerSecond } : {}),
      clock,
      random: seededRandom(i + 1),
      log: silentLog,
      instanceId: `instance-${i}`,
    }),
  }));
  let turnedAway = 0;
  const stepMs = 1_000 / callsPerSecond;
  for (let call = 0; call < callsPerSecond * seconds; call += 1) {
    time.nowMs = FIXED_NOW_MS + Math.floor(call * stepMs);
    const instance = fleet[call % instances];
    if (instance === undefined) continue;
    const admission = await instance.breakers.admit(KEY);
    const limit = await instance.limits.admit(KEY, 15_000);
    if (admission.verdict === "defer" || limit.verdict === "defer") {
      turnedAway += 1;
      continue;
    }
    // One call in ten fails: a partner having a bad minute, well below the 50 % that trips.
    await instance.breakers.recordCall(KEY, random() < 0.1, admission.verdict);
    await limit.permit.release();
  }
  return { ...stores.busiest(), turnedAway };
};

describe("writes per second on one target's shared items", () => {
  it("stay below an item's write capacity at 100 instances and 5 000 calls/s", async () => {
    const figures = await simulate(100, 5_000, 10, true);

    expect(figures.turnedAway).toBe(0);
    // Failures are written at most once a second per instance.
    expect(figures.breaker).toBeLessThanOrEqual(100 + 1);
    // The counter: each instance's slow start in the first second (1, 2, 4, … of its 50 calls:
    // 6 writes), then one batch a second.
    expect(figures.rate).toBeLessThanOrEqual(6 * 100);
    expect(figures.steadyRate).toBeLessThanOrEqual(2 * 100);
    expect(Math.max(figures.breaker, figures.rate)).toBeLessThan(ITEM_WRITE_UNITS_PER_SECOND);
  });

  it("reach the breaker item's capacity at ten times that: 1 000 instances writing once a second", async () => {
    // No rate limit: none may be declared above 10 000 calls/s (MAX_TARGET_LIMIT).
    const figures = await simulate(1_000, 50_000, 3, false);

    expect(figures.turnedAway).toBe(0);
    expect(figures.rate).toBe(0);
    // A write per instance per second: the limit of this design, where sharding would begin.
    expect(figures.breaker).toBeGreaterThanOrEqual(ITEM_WRITE_UNITS_PER_SECOND * 0.9);
  });
});

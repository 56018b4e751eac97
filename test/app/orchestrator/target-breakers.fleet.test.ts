import { describe, expect, it } from "vitest";
import { createTargetBreakers } from "../../../lib/app/orchestrator/target-breakers.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../../lib/core/circuit-breaker.js";
import { silentLog } from "../../../lib/core/observability.js";
import { seededRandom } from "../../../lib/core/random.js";
import { createMemoryTargetStateStore } from "../../simulation/memory-target-state-store.js";
import { FIXED_NOW_MS } from "../../support/factories.js";

/*
 * A fleet of instances starting together against one target, each making 50 calls a second and
 * a share of them failing, over the breakers' item's in-memory twin with the default settings
 * (open at half the calls failing, at least ten): whether, and when, the breaker opens.
 */

const KEY = "http:https://partner.example:443";
const CALLS_PER_INSTANCE_PER_SECOND = 50;

/** When the breaker first turned a call away, ms from the start; undefined if it never did. */
const openedAfterMs = async (instances: number, failing: number, seed: number) => {
  const time = { nowMs: FIXED_NOW_MS };
  const store = createMemoryTargetStateStore();
  const random = seededRandom(seed);
  const fleet = Array.from({ length: instances }, () =>
    createTargetBreakers({
      store,
      settings: DEFAULT_BREAKER_SETTINGS,
      clock: () => time.nowMs,
      log: silentLog,
    }),
  );
  const perSecond = CALLS_PER_INSTANCE_PER_SECOND * instances;
  for (let call = 0; call < perSecond * 5; call += 1) {
    time.nowMs = FIXED_NOW_MS + Math.floor((call * 1_000) / perSecond);
    const breakers = fleet[call % instances];
    if (breakers === undefined) continue;
    const admission = await breakers.admit(KEY);
    if (admission.verdict === "defer") return time.nowMs - FIXED_NOW_MS;
    await breakers.recordCall(KEY, random() < failing, admission.verdict);
  }
  return undefined;
};

describe("a fleet of breakers starting together", () => {
  it.each([
    [100, 0.05],
    [100, 0.2],
    [20, 0.3],
    [1, 0.3],
  ])(
    "with %i instances, %d of calls failing, never opens in any of ten runs",
    async (instances, failing) => {
      for (let seed = 1; seed <= 10; seed += 1)
        expect(await openedAfterMs(instances, failing, seed)).toBeUndefined();
    },
  );

  it.each([
    [1, 1],
    [100, 1],
    [100, 0.6],
  ])(
    "with %i instances, %d of calls failing, opens within its first write interval and a bit",
    async (instances, failing) => {
      const openedMs = await openedAfterMs(instances, failing, 1);
      expect(openedMs).toBeDefined();
      expect(openedMs ?? Number.POSITIVE_INFINITY).toBeLessThan(1_500);
    },
  );
});

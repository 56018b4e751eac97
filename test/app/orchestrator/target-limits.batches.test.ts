import { describe, expect, it } from "vitest";
import { createTargetLimiter } from "../../../lib/app/orchestrator/target-limits.js";
import { silentLog } from "../../../lib/core/observability.js";
import type { TargetLimitsStore } from "../../../lib/core/ports.js";
import { seededRandom } from "../../../lib/core/random.js";
import { rateWindowOf } from "../../../lib/core/target-limits.js";
import { createMemoryTargetLimitsStore } from "../../simulation/memory-target-limits-store.js";
import { FIXED_NOW_MS } from "../../support/factories.js";

/*
 * The rate limit's batches, on a shared clock and the store's in-memory twin: how many counts
 * (each one write on DynamoDB) a caller costs, and that batches never let more than the limit
 * through in a window, however many instances share it.
 */
const KEY = "api.partner.example";
const LEASE_MS = 10_000;

/** A store that counts its counts, as DynamoDB would bill them (one write each). */
const countingStore = () => {
  const store = createMemoryTargetLimitsStore();
  const counts = { value: 0 };
  const counted: TargetLimitsStore = {
    ...store,
    countCall: (...args) => {
      counts.value += 1;
      return store.countCall(...args);
    },
  };
  return { store: counted, counts };
};

const instances = (n: number, store: TargetLimitsStore, limit: number, clock: () => number) =>
  Array.from({ length: n }, (_, i) =>
    createTargetLimiter({
      store,
      limitsFor: () => ({ maxCallsPerSecond: limit }),
      clock,
      random: seededRandom(i + 1),
      log: silentLog,
      instanceId: `instance-${i}`,
    }),
  );

describe("the rate limit's batches", () => {
  it("costs a starting caller a count per doubling of its calls, then a steady one a count a window", async () => {
    const clock = { now: FIXED_NOW_MS };
    const { store, counts } = countingStore();
    const [limiter] = instances(1, store, 1_000, () => clock.now);
    const countsPerWindow: number[] = [];
    for (let window = 0; window < 4; window += 1) {
      const before = counts.value;
      for (let call = 0; call < 20; call += 1) {
        clock.now = FIXED_NOW_MS + window * 1_000 + call * 40;
        expect((await limiter?.admit(KEY, LEASE_MS))?.verdict).toBe("call");
      }
      countsPerWindow.push(counts.value - before);
    }
    // The first window asks for 1, 2, 4, 8 and 16 (slow start); each later one for 21 at once.
    expect(countsPerWindow).toEqual([5, 1, 1, 1]);
  });

  it.each([
    [2, 100],
    [10, 1_000],
  ])(
    "lets exactly the limit through in each saturated window with %i instances asking at a limit of %i/s",
    async (n, limit) => {
      const clock = { now: FIXED_NOW_MS };
      const { store, counts } = countingStore();
      const limiters = instances(n, store, limit, () => clock.now);
      const admittedPerWindow = new Map<number, number>();
      const windows = 4;
      const asksPerWindow = 3 * limit;
      for (let ask = 0; ask < windows * asksPerWindow; ask += 1) {
        clock.now = FIXED_NOW_MS + Math.floor((ask * 1_000) / asksPerWindow);
        const limiter = limiters[ask % n];
        if ((await limiter?.admit(KEY, LEASE_MS))?.verdict !== "call") continue;
        const window = rateWindowOf(clock.now);
        admittedPerWindow.set(window, (admittedPerWindow.get(window) ?? 0) + 1);
      }
      expect([...admittedPerWindow.values()]).toEqual(Array.from({ length: windows }, () => limit));
      // Past the first window the admitted cost a count a batch; every turned-away ask still costs
      // one, to keep their order.
      const turnedAway = windows * (asksPerWindow - limit);
      expect(counts.value - turnedAway).toBeLessThan(limit + (windows - 1) * (limit / 2));
    },
  );
});

import { describe, expect, it } from "vitest";
import {
  type AdaptiveLimiter,
  createAdaptiveLimiter,
} from "../../../lib/app/orchestrator/adaptive-limits.js";
import { LEARNED_WRITE_INTERVAL_MS } from "../../../lib/app/orchestrator/learned-limit-publisher.js";
import { LimitChange } from "../../../lib/core/adaptive-limit.js";
import { BreakerState } from "../../../lib/core/circuit-breaker.js";
import { LEARNED_REFRESH_MS } from "../../../lib/core/learned-limits.js";
import type { Log } from "../../../lib/core/observability.js";
import type { LearnedLimitWrite, TargetStateStore } from "../../../lib/core/ports.js";
import { seededRandom } from "../../../lib/core/random.js";
import { createMemoryTargetStateStore } from "../../simulation/memory-target-state-store.js";
import {
  answered,
  ADAPTIVE_TEST_SETTINGS as settings,
  ADAPTIVE_TARGET as TARGET,
} from "../../support/adaptive-observations.js";
import { FIXED_NOW_MS } from "../../support/factories.js";

/*
 * What one instance's learned limits cost the target's item (issue #35): nothing while the target
 * is healthy, one write per material change, at most one per target per interval, none awaited.
 */

interface PublishingOptions {
  readonly failing?: boolean;
  readonly instanceId?: string;
  /** Another instance's store and clock, to share its target items. */
  readonly beside?: { readonly memory: TargetStateStore; readonly time: { nowMs: number } };
}

const publishingLimiter = (options: PublishingOptions = {}) => {
  const time = options.beside?.time ?? { nowMs: FIXED_NOW_MS };
  const memory = options.beside?.memory ?? createMemoryTargetStateStore();
  const writes: LearnedLimitWrite[] = [];
  const warned: string[] = [];
  const store: Pick<TargetStateStore, "writeLearnedLimit"> = {
    writeLearnedLimit: async (write) => {
      writes.push(write);
      if (options.failing === true) throw new Error("table unreachable");
      return memory.writeLearnedLimit(write);
    },
  };
  const log: Log = { info: () => {}, warn: (message) => warned.push(message), error: () => {} };
  const limiter = createAdaptiveLimiter({
    settingsFor: () => settings,
    clock: () => time.nowMs,
    random: seededRandom(5),
    log,
    publish: { store, instanceId: options.instanceId ?? "w-one" },
  });
  return { limiter, time, writes, memory, warned };
};

/** `calls` admitted calls, each answered `statusCode` and ended before the next. */
const callAll = (limiter: AdaptiveLimiter, calls: number, statusCode: number): void => {
  for (let i = 0; i < calls; i += 1) {
    const admission = limiter.admit(TARGET);
    if (admission.verdict !== "call") continue;
    limiter.observe(TARGET, answered(statusCode));
    void admission.permit.release(); // synchronous: it awaits nothing
  }
};

describe("the learned limits written for operators", () => {
  it("writes nothing for a healthy target, however many calls it takes", () => {
    const { limiter, time, writes } = publishingLimiter();
    for (let second = 0; second < 30; second += 1) {
      callAll(limiter, 200, 200);
      time.nowMs += 1_000;
    }
    expect(writes).toEqual([]);
  });

  it("writes one entry on a cut, and at most one more for cuts inside the interval", async () => {
    const { limiter, time, writes, memory } = publishingLimiter();
    callAll(limiter, 50, 200);
    time.nowMs += 1_000;
    callAll(limiter, 1, 429); // 50 × 0.8 = 40/s
    expect(writes).toHaveLength(1);
    expect(writes[0]?.entry).toMatchObject({
      instanceId: "w-one",
      callsPerSecond: 40,
      ceilingPerSecond: 1_000,
      reason: LimitChange.OVERLOAD,
      writtenAtMs: time.nowMs,
    });

    // Cuts once a second, each inside the interval of the first write: none written yet.
    for (let second = 1; second < LEARNED_WRITE_INTERVAL_MS / 1_000; second += 1) {
      time.nowMs += 1_000;
      callAll(limiter, 1, 429);
    }
    expect(writes).toHaveLength(1);

    // The window opens: the next observation writes the latest state, once.
    time.nowMs += 1_000;
    callAll(limiter, 3, 200);
    expect(writes).toHaveLength(2);
    // The last state wins: the later cuts' rate, not the first's.
    expect(writes[1]?.entry?.callsPerSecond).toBeLessThan(writes[0]?.entry?.callsPerSecond ?? 0);
    await Promise.resolve();
    const [listed] = await memory.list(10);
    expect(listed?.learned?.map((e) => e.instanceId)).toEqual(["w-one"]);
  });

  it("writes the breaker's zero, and removes the entry once the breaker closes at the ceiling", () => {
    const { limiter, time, writes } = publishingLimiter();
    limiter.observe(TARGET, { kind: "breaker", state: BreakerState.OPEN });
    expect(writes.map((w) => w.entry?.callsPerSecond)).toEqual([0]);
    time.nowMs += LEARNED_WRITE_INTERVAL_MS;
    limiter.observe(TARGET, { kind: "breaker", state: BreakerState.CLOSED });
    expect(writes).toHaveLength(2);
    expect(writes[1]?.entry).toBeUndefined();
    time.nowMs += LEARNED_REFRESH_MS;
    callAll(limiter, 20, 200);
    expect(writes).toHaveLength(2); // back at the ceiling: nothing more
  });

  it("rewrites an unchanged entry before it would read as stale, while still held back", () => {
    const { limiter, time, writes } = publishingLimiter();
    callAll(limiter, 50, 200);
    time.nowMs += 1_000;
    callAll(limiter, 1, 429);
    time.nowMs += LEARNED_REFRESH_MS;
    limiter.observe(TARGET, answered(429, "1")); // holds the rate: no cut, no change
    expect(writes).toHaveLength(2);
    expect(writes[1]?.entry?.writtenAtMs).toBe(time.nowMs);
  });

  it("learns from each write what the other instances hold, and shows the target's sum", async () => {
    const one = publishingLimiter();
    const two = publishingLimiter({ instanceId: "w-two", beside: one });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    for (const { limiter } of [one, two]) callAll(limiter, 50, 200);
    one.time.nowMs += 1_000;
    callAll(one.limiter, 1, 429); // 40/s, written first: no other entry yet
    await settle();
    callAll(two.limiter, 1, 429); // 40/s, and hears one's
    await settle();
    expect(two.limiter.engaged()[0]?.summedPerSecond).toBe(80);
    expect(one.limiter.engaged()[0]?.summedPerSecond).toBeUndefined();
    one.time.nowMs += LEARNED_REFRESH_MS;
    callAll(one.limiter, 1, 200); // no change told: the refresh writes, and hears two's
    await settle();
    expect(one.limiter.engaged()[0]?.summedPerSecond).toBeCloseTo(80, 1);
  });

  it("logs a failed write and never throws it at the call", async () => {
    const { limiter, time, writes, warned } = publishingLimiter({ failing: true });
    callAll(limiter, 50, 200);
    time.nowMs += 1_000;
    expect(() => callAll(limiter, 1, 429)).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    expect(warned).toEqual(["learned target limit not written"]);
  });
});

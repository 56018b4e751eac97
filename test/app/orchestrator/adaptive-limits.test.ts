import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AdaptiveLimiter,
  createAdaptiveLimiter,
} from "../../../lib/app/orchestrator/adaptive-limits.js";
import { LimitKind } from "../../../lib/app/orchestrator/target-limits.js";
import { LimitChange } from "../../../lib/core/adaptive-limit.js";
import { REFILL_MS } from "../../../lib/core/call-tokens.js";
import { BreakerState } from "../../../lib/core/circuit-breaker.js";
import type { Log } from "../../../lib/core/observability.js";
import { seededRandom } from "../../../lib/core/random.js";
import { rateWindowOf } from "../../../lib/core/target-limits.js";
import {
  answered,
  ADAPTIVE_TEST_SETTINGS as settings,
  ADAPTIVE_TARGET as TARGET,
} from "../../support/adaptive-observations.js";
import { FIXED_NOW_MS } from "../../support/factories.js";

/*
 * One instance's adaptive limits, in memory on a moved clock: what it admits and defers once a
 * target has pushed back, and that a target which never did is admitted as without them.
 */

const limiterAt = (options: { maxTargets?: number } = {}) => {
  const time = { nowMs: FIXED_NOW_MS };
  const told: Array<Record<string, unknown>> = [];
  const log: Log = {
    info: (_message, fields) => told.push(fields ?? {}),
    warn: () => {},
    error: () => {},
  };
  const limiter = createAdaptiveLimiter({
    settingsFor: () => settings,
    clock: () => time.nowMs,
    random: seededRandom(3),
    log,
    maxTargets: options.maxTargets,
  });
  return { limiter, time, told };
};

/**
 * `calls` asked for one after another at the current time, each admitted one answered
 * `statusCode` (when given) and ended before the next: how many were admitted.
 */
const callAll = (limiter: AdaptiveLimiter, calls: number, statusCode?: number): number => {
  let admitted = 0;
  for (let i = 0; i < calls; i += 1) {
    const admission = limiter.admit(TARGET);
    if (admission.verdict !== "call") continue;
    admitted += 1;
    if (statusCode !== undefined) limiter.observe(TARGET, answered(statusCode));
    void admission.permit.release(); // synchronous: it awaits nothing
  }
  return admitted;
};

/** Calls asked for in the current second, each ended before the next: how many were let through. */
const admittedOf = (limiter: AdaptiveLimiter, calls: number): number => callAll(limiter, calls);

describe("adaptive limits on one instance", () => {
  it("admits a target that never pushed back without holding any call", () => {
    const { limiter } = limiterAt();
    callAll(limiter, 5_000, 200);
    expect(admittedOf(limiter, 2_000)).toBe(2_000);
    expect(limiter.engaged()).toEqual([]);
  });

  it("after 429s holds the calls of one second to the rate cut from what was sent", () => {
    const { limiter, time, told } = limiterAt();
    callAll(limiter, 50, 200); // 50 calls sent in this second...
    time.nowMs += 1_000;
    callAll(limiter, 10, 429); // ...then the partner pushes back: 50 × 0.8 = 40/s

    time.nowMs = rateWindowOf(time.nowMs) + 1_000;
    expect(admittedOf(limiter, 100)).toBe(40);
    const [learned] = limiter.engaged();
    expect(learned).toMatchObject({ key: TARGET, callsPerSecond: 40, ceilingPerSecond: 1_000 });
    expect(learned?.reason).toBe(LimitChange.OVERLOAD);
    expect(told).toEqual([{ target: TARGET, callsPerSecond: 40, reason: LimitChange.OVERLOAD }]);
  });

  it("spreads the calls turned away over the following seconds, in the order they asked", () => {
    const { limiter, time } = limiterAt();
    callAll(limiter, 10, 200);
    time.nowMs += 1_000;
    callAll(limiter, 1, 429); // 10 × 0.8 = 8/s
    time.nowMs = rateWindowOf(time.nowMs) + 1_000;
    const windowStartMs = time.nowMs;

    const deferred = Array.from({ length: 24 }, () => {
      const admission = limiter.admit(TARGET);
      if (admission.verdict === "defer") return [admission];
      void admission.permit.release(); // each call ends before the next is asked for
      return [];
    }).flat();

    expect(deferred).toHaveLength(16);
    expect(deferred.every((d) => d.limit === LimitKind.RATE)).toBe(true);
    const seconds = deferred.map((d) => Math.floor((d.untilMs - windowStartMs) / 1_000));
    expect(seconds).toEqual([...Array(8).fill(1), ...Array(8).fill(2)]);
  });

  it("does not let a second's calls at its end and the next one's at its start go together", () => {
    const { limiter, time } = limiterAt();
    callAll(limiter, 10, 200);
    time.nowMs += 1_000;
    callAll(limiter, 1, 429); // 10 × 0.8 = 8/s
    time.nowMs = rateWindowOf(time.nowMs) + 1_000 + 990;
    expect(admittedOf(limiter, 8)).toBe(8);

    time.nowMs += 20; // the next aligned second, which alone would take 8 more
    expect(limiter.admit(TARGET)).toMatchObject({ verdict: "defer", limit: LimitKind.RATE });
    time.nowMs += REFILL_MS; // refilled, and still in that second: the one turned away counted
    expect(admittedOf(limiter, 8)).toBe(7);
  });

  it("pauses every call for a long Retry-After on a 429, and admits again once it has passed", () => {
    const { limiter, time } = limiterAt();
    callAll(limiter, 10, 200);
    limiter.admit(TARGET);
    limiter.observe(TARGET, answered(429, "5"));

    const held = limiter.admit(TARGET);
    expect(held).toEqual({ verdict: "defer", untilMs: time.nowMs + 5_000, limit: LimitKind.RATE });
    time.nowMs += 5_000;
    expect(limiter.admit(TARGET).verdict).toBe("call");
  });

  it("turns every call away while the target's breaker is open, and none once it closes", () => {
    const { limiter } = limiterAt();
    limiter.observe(TARGET, { kind: "breaker", state: BreakerState.OPEN });
    expect(limiter.admit(TARGET).verdict).toBe("defer");
    limiter.observe(TARGET, { kind: "breaker", state: BreakerState.CLOSED });
    expect(limiter.admit(TARGET).verdict).toBe("call");
  });

  it("lets a second's calls be in flight at once, no more, and frees one on release", async () => {
    const { limiter, time } = limiterAt();
    callAll(limiter, 10, 200); // baseline 50 ms: Little's law alone would allow 1 in flight
    time.nowMs += 1_000;
    callAll(limiter, 1, 429); // 10 × 0.8 = 8/s
    time.nowMs = rateWindowOf(time.nowMs) + 1_000;

    const held = Array.from({ length: 8 }, () => limiter.admit(TARGET));
    expect(held.every((a) => a.verdict === "call")).toBe(true);
    expect(limiter.admit(TARGET)).toMatchObject({ verdict: "defer", limit: LimitKind.CONCURRENCY });
    const [first] = held;
    if (first?.verdict !== "call") throw new Error("the first call was turned away");
    await first.permit.release();
    await first.permit.release(); // a second release gives nothing more back
    time.nowMs += 1_000;
    expect(limiter.admit(TARGET).verdict).toBe("call");
    expect(limiter.admit(TARGET)).toMatchObject({ verdict: "defer", limit: LimitKind.CONCURRENCY });
  });

  it("holds a busy target to the calls in flight its 503 taught, however high its rate", async () => {
    const { limiter, time, told } = limiterAt();
    callAll(limiter, 50, 200);
    const out = Array.from({ length: 5 }, () => limiter.admit(TARGET));
    const [refused] = out;
    if (refused?.verdict !== "call") throw new Error("the first call was turned away");
    // The gate gives the permit back, then tells the answer: 4 still out and this one, 5.
    await refused.permit.release();
    limiter.observe(TARGET, answered(503));
    for (const admission of out.slice(1))
      if (admission.verdict === "call") await admission.permit.release();
    time.nowMs = rateWindowOf(time.nowMs) + 1_000;

    const held = Array.from({ length: 10 }, () => limiter.admit(TARGET));
    expect(held.filter((a) => a.verdict === "call")).toHaveLength(4);
    expect(held.at(-1)).toMatchObject({ verdict: "defer", limit: LimitKind.CONCURRENCY });
    expect(told.at(-1)).toMatchObject({ reason: LimitChange.OVERLOAD, maxConcurrentCalls: 4 });
    expect(limiter.engaged()[0]?.maxConcurrentCalls).toBe(4);
  });

  it("forgets the least recently called target beyond its bound, which starts again unlimited", () => {
    const { limiter, time } = limiterAt({ maxTargets: 2 });
    callAll(limiter, 10, 200);
    time.nowMs += 1_000;
    callAll(limiter, 1, 429);
    expect(limiter.engaged().map((l) => l.key)).toEqual([TARGET]);

    limiter.admit("lambda:a");
    limiter.admit("lambda:b");

    expect(limiter.engaged()).toEqual([]);
    expect(admittedOf(limiter, 100)).toBe(100);
  });

  it("never admits more calls in an aligned second than the learned rate allows", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 400 }),
        fc.array(fc.integer({ min: 0, max: 1_500 }), { minLength: 1, maxLength: 200 }),
        (sent, gapsMs) => {
          const { limiter, time } = limiterAt();
          callAll(limiter, sent, 200);
          time.nowMs += 1_000;
          callAll(limiter, 1, 429);
          const rate = limiter.engaged()[0]?.callsPerSecond ?? 0;
          const perWindow = new Map<number, number>();
          for (const gapMs of gapsMs) {
            time.nowMs += gapMs;
            const admission = limiter.admit(TARGET);
            if (admission.verdict !== "call") continue;
            const window = rateWindowOf(time.nowMs);
            perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
            void admission.permit.release();
          }
          for (const count of perWindow.values()) expect(count).toBeLessThanOrEqual(rate);
        },
      ),
    );
  });
});

describe("what operators are told of a target's random 429s", () => {
  it("is told once the 429s of a partner refusing 5 % at random are read as noise", () => {
    const time = { nowMs: FIXED_NOW_MS };
    const messages: string[] = [];
    const log: Log = { info: (message) => messages.push(message), warn: () => {}, error: () => {} };
    const limiter = createAdaptiveLimiter({
      settingsFor: () => settings,
      clock: () => time.nowMs,
      random: seededRandom(3),
      log,
    });
    const refuses = seededRandom(5);
    // 200 asks a second for two minutes, each answered at once.
    for (let tick = 0; tick < 24_000; tick += 1) {
      time.nowMs = FIXED_NOW_MS + tick * 5;
      const admission = limiter.admit(TARGET);
      if (admission.verdict !== "call") continue;
      limiter.observe(TARGET, refuses() < 0.05 ? answered(429, "1") : answered(200));
      void admission.permit.release();
    }
    expect(messages.filter((m) => m === "target 429s read as noise")).toHaveLength(1);
    expect(messages).not.toContain("target 429s no longer read as noise");
  });
});

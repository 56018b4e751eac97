import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../lib/core/random.js";
import {
  RATE_WINDOW_MS,
  rateVerdict,
  SLOT_TRIES,
  slotRetryAt,
  slotsToTry,
} from "../../lib/core/target-limits.js";
import { FIXED_NOW_MS } from "../support/factories.js";
import { aRandomValue } from "./arbitraries.js";

const W = 1_000 * Math.floor(FIXED_NOW_MS / 1_000);

describe("rateVerdict", () => {
  it.each([
    ["the first call of a window", 1, 3, { verdict: "call" }],
    ["the limit-th call", 3, 3, { verdict: "call" }],
    ["the first one over: the next window's start", 4, 3, { verdict: "defer", untilMs: W + 1000 }],
    [
      "the second one over: a third of a second later",
      5,
      3,
      { verdict: "defer", untilMs: W + 1333 },
    ],
    ["the limit+1-th one over: the window after", 7, 3, { verdict: "defer", untilMs: W + 2000 }],
  ] as const)("%s", (_name, count, limit, expected) => {
    expect(rateVerdict(W, count, limit)).toEqual(expected);
  });

  it("schedules the ones turned away at no more than the limit per later window", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 400 }), (limit, n) => {
        const perWindow = new Map<number, number>();
        for (let count = 1; count <= n; count += 1) {
          const v = rateVerdict(W, count, limit);
          const window = v.verdict === "call" ? W : Math.floor(v.untilMs / RATE_WINDOW_MS) * 1000;
          if (v.verdict === "defer") expect(v.untilMs).toBeGreaterThan(W + RATE_WINDOW_MS - 1);
          perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
        }
        for (const used of perWindow.values()) expect(used).toBeLessThanOrEqual(limit);
      }),
    );
  });
});

describe("slotsToTry", () => {
  it("tries every slot of a small limit, and at most SLOT_TRIES distinct ones of a large one", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), aRandomValue(), (max, r) => {
        const slots = slotsToTry(max, () => r);
        expect(new Set(slots).size).toBe(slots.length);
        expect(slots.length).toBe(Math.min(max, SLOT_TRIES));
        for (const slot of slots) expect(slot >= 0 && slot < max).toBe(true);
      }),
    );
  });

  it("starts at different slots for different draws", () => {
    const random = seededRandom(7);
    const starts = new Set(Array.from({ length: 50 }, () => slotsToTry(10, random)[0]));
    expect(starts.size).toBeGreaterThan(5);
  });
});

describe("slotRetryAt", () => {
  it("asks again one to two seconds on", () => {
    fc.assert(
      fc.property(aRandomValue(), (r) => {
        const at = slotRetryAt(W, () => r) - W;
        expect(at >= 1_000 && at < 2_000).toBe(true);
      }),
    );
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../lib/core/random.js";
import {
  RATE_WINDOW_MS,
  rateBatchSize,
  rateGranted,
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

describe("rate batches from the shared counter", () => {
  it.each<[string, number, number, boolean, number]>([
    ["a first ask: one", 1_000, 0, false, 1],
    ["a steady caller: one more than it used recently", 1_000, 30, false, 31],
    ["at most 5 % of the limit", 1_000, 400, false, 50],
    ["a low limit: one at a time", 10, 9, false, 1],
    ["a full window: one, to keep the order of the turned-away", 1_000, 30, true, 1],
  ])("asks for %s", (_name, limit, used, full, expected) => {
    expect(rateBatchSize(limit, used, full)).toBe(expected);
  });

  it.each<[string, number, number, number, number]>([
    ["all of a batch below the limit", 40, 10, 100, 10],
    ["a batch ending exactly at the limit", 100, 10, 100, 10],
    ["the part of a batch below the limit", 105, 10, 100, 5],
    ["none of a batch past the limit", 120, 10, 100, 0],
    ["one call, as before", 1, 1, 1, 1],
  ])("grants %s", (_name, count, asked, limit, expected) => {
    expect(rateGranted(count, asked, limit)).toBe(expected);
  });

  it("never grants more than the limit in a window, and all of it while asks remain", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 200 }),
        (limit, asks) => {
          let count = 0;
          let granted = 0;
          for (const asked of asks) {
            count += asked;
            granted += rateGranted(count, asked, limit);
          }
          expect(granted).toBe(Math.min(limit, count));
        },
      ),
    );
  });
});

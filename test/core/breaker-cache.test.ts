import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  adopted,
  type CachedBreaker,
  callHeld,
  countingFrom,
  FAILURE_FLUSH_MS,
  failuresDue,
  failuresTaken,
  unseenBreaker,
} from "../../lib/core/breaker-cache.js";
import {
  type BreakerSettings,
  BreakerState,
  closedBreaker,
  DEFAULT_BREAKER_SETTINGS,
} from "../../lib/core/circuit-breaker.js";
import type { StoredBreaker } from "../../lib/core/ports.js";
import { FIXED_NOW_MS } from "../support/factories.js";

const NOW = FIXED_NOW_MS;
const KEY = "https://partner.example/hook";
const settings: BreakerSettings = {
  ...DEFAULT_BREAKER_SETTINGS,
  minimumCalls: 10,
  failureRateThreshold: 0.5,
  windowMs: 60_000,
};

const stored = (
  version: number,
  fields: Partial<StoredBreaker["breaker"]> = {},
): StoredBreaker => ({
  key: KEY,
  breaker: { ...closedBreaker(NOW), ...fields },
  version,
});

/** A view that has written before, holding `failures` and `successes`, last written at NOW. */
const holding = (
  failures: number,
  successes: number,
  breaker: StoredBreaker = stored(1),
): CachedBreaker => ({ ...countingFrom(breaker, NOW), failures, successes, written: true });

describe("a target's cached breaker", () => {
  it("starts unseen targets as a closed breaker at version 0 that has written nothing", () => {
    expect(unseenBreaker(KEY, NOW)).toEqual({
      stored: { key: KEY, breaker: closedBreaker(NOW), version: 0 },
      successes: 0,
      failures: 0,
      failuresWrittenAtMs: NOW,
      written: false,
    });
  });

  it("counts a success and a failure into the held calls, keeping the latest error", () => {
    const first = callHeld(unseenBreaker(KEY, NOW), true, "503 first");
    const second = callHeld(first, false, undefined);
    const third = callHeld(second, true, "503 second");
    expect(third).toMatchObject({ failures: 2, successes: 1, lastError: "503 second" });
    expect(callHeld(third, true, undefined).lastError).toBe("503 second");
  });

  it("empties the held calls when they are taken for a write, and marks the view written", () => {
    const taken = failuresTaken({ ...holding(3, 4), lastError: "boom" }, NOW + 10);
    expect(taken).toMatchObject({
      failures: 0,
      successes: 0,
      lastError: undefined,
      failuresWrittenAtMs: NOW + 10,
      written: true,
    });
  });
});

describe("adopting what a write returned", () => {
  it.each([
    ["a newer version, keeping the held calls", 3, false, { failures: 2, successes: 5 }],
    ["the same version, keeping the held calls", 2, false, { failures: 2, successes: 5 }],
    ["a state change, dropping the held calls", 3, true, { failures: 0, successes: 0 }],
  ] as const)("takes %s", (_name, version, restart, counts) => {
    const view = holding(2, 5, stored(2));
    const next = adopted(view, stored(version), restart, NOW + 50);
    expect(next).toMatchObject({ stored: stored(version), ...counts });
  });

  it("restarts the count at the write's time, so its first failures wait a flush interval", () => {
    const next = adopted(holding(2, 5, stored(2)), stored(3), true, NOW + 50);
    expect(next).toMatchObject({ failuresWrittenAtMs: NOW + 50, written: false });
  });

  it("ignores an answer older than the view: a lost race must not close an opened breaker", () => {
    const openedView = holding(0, 0, stored(4, { state: BreakerState.OPEN }));
    expect(adopted(openedView, stored(3), false, NOW)).toBeUndefined();
    expect(adopted(openedView, stored(3), true, NOW)).toBeUndefined();
  });
});

describe("when held failures are written", () => {
  it.each([
    [
      "not before the flush interval on a view that never wrote",
      false,
      9,
      0,
      FAILURE_FLUSH_MS - 1,
      false,
    ],
    ["once the flush interval has passed, whatever they say", false, 1, 0, FAILURE_FLUSH_MS, true],
    ["at once when what the view knows trips the breaker", true, 5, 5, 1, true],
    ["not yet when it would not trip the breaker", true, 4, 6, 1, false],
    ["not yet below the minimum calls, all failures", true, 9, 0, 1, false],
  ] as const)("%s", (_name, written, failures, successes, afterMs, due) => {
    const view = { ...holding(failures, successes), written };
    expect(failuresDue(view, NOW + afterMs, settings)).toBe(due);
  });

  it("adds the stored window's counts while the window is current, and drops them once it is not", () => {
    const window = stored(1, { windowStartMs: NOW - 59_999, calls: 8, failures: 4 });
    const view = holding(1, 1, window);
    expect(failuresDue(view, NOW, settings)).toBe(true);
    expect(failuresDue({ ...view, failuresWrittenAtMs: NOW + 1 }, NOW + 1, settings)).toBe(false);
  });

  it("writes at least once per flush interval for any held counts and any breaker", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.nat(1_000),
        fc.nat(1_000),
        fc.record({ calls: fc.nat(1_000), failures: fc.nat(1_000), windowStartMs: fc.nat(NOW) }),
        fc.nat(10 * FAILURE_FLUSH_MS),
        (written, failures, successes, window, extraMs) => {
          const view = { ...holding(failures, successes, stored(1, window)), written };
          expect(failuresDue(view, NOW + FAILURE_FLUSH_MS + extraMs, settings)).toBe(true);
        },
      ),
    );
  });
});

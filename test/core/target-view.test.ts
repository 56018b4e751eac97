import { describe, expect, it } from "vitest";
import {
  type Breaker,
  BreakerState,
  closedBreaker,
  DEFAULT_BREAKER_SETTINGS,
  opened,
  recordCall,
} from "../../lib/core/circuit-breaker.js";
import {
  currentWindow,
  outageStartMs,
  stateChangeStamps,
  targetErrorExcerpt,
} from "../../lib/core/target-view.js";

const T0 = 1_000_000;
const settings = DEFAULT_BREAKER_SETTINGS;
const open1 = opened(closedBreaker(T0), T0, settings);
const halfOpen: Breaker = { ...open1, state: BreakerState.HALF_OPEN, changedAtMs: T0 + 30_000 };
const reopened = recordCall(halfOpen, true, T0 + 31_000, settings);
const closedAgain = recordCall(halfOpen, false, T0 + 31_000, settings);

describe("stateChangeStamps", () => {
  it.each([
    ["a closed breaker opening: the outage starts", open1, { openedAtMs: T0 }],
    ["a failed probe reopening it: the outage goes on", reopened, {}],
    ["a probe let through: nothing ends yet", halfOpen, {}],
    ["a probe closing it: the outage ends", closedAgain, { closedAtMs: T0 + 31_000 }],
  ])("stamps %s", (_name, breaker, stamps) => {
    expect(stateChangeStamps(breaker)).toEqual(stamps);
  });
});

describe("outageStartMs", () => {
  it("is the stamped opening, whatever the breaker's last change", () => {
    expect(outageStartMs(reopened, { openedAtMs: T0 })).toBe(T0);
  });
  it("falls back to the breaker's last change on an item without stamps", () => {
    expect(outageStartMs(reopened, undefined)).toBe(reopened.changedAtMs);
  });
});

describe("currentWindow", () => {
  const counted: Breaker = { ...closedBreaker(T0), calls: 12, failures: 3 };
  it.each([
    ["at its start", T0, { calls: 12, failures: 3 }],
    ["just before its end", T0 + settings.windowMs - 1, { calls: 12, failures: 3 }],
    ["once it is over", T0 + settings.windowMs, { calls: 0, failures: 0 }],
  ])("counts a window's calls %s", (_name, nowMs, expected) => {
    expect(currentWindow(counted, nowMs, settings.windowMs)).toEqual(expected);
  });
});

describe("targetErrorExcerpt", () => {
  it("blanks credentials before cutting, so no cut leaves part of one", () => {
    const excerpt = targetErrorExcerpt(`${"x".repeat(100)} Bearer abcdefghijklmnopqrstuvwxyz`);
    expect(excerpt).not.toMatch(/abc/);
    expect(excerpt.length).toBeLessThanOrEqual(120);
  });
});

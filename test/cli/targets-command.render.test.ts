import { describe, expect, it } from "vitest";
import { renderTargets } from "../../lib/cli/targets-command.js";
import { LimitChange } from "../../lib/core/adaptive-limit.js";
import { aTargetReport, FIXED_NOW_MS } from "../support/factories.js";

const NOW_MS = FIXED_NOW_MS;

const failing = aTargetReport();

/** Closed again after an outage: no calls in the window, the outage's error kept. */
const recovered = aTargetReport({
  calls: 0,
  failures: 0,
  failureRate: undefined,
  lastErrorAt: new Date(NOW_MS - 300_000).toISOString(),
  closedAt: new Date(NOW_MS - 60_000).toISOString(),
});

/** Held back by two instances' learned limits since a 429 twelve seconds ago. */
const throttled = aTargetReport({
  learned: {
    callsPerSecond: 18.4,
    instances: 2,
    ceilingPerSecond: 100,
    maxConcurrentCalls: 10,
    reason: LimitChange.OVERLOAD,
    changedAt: new Date(NOW_MS - 12_000).toISOString(),
  },
});

describe("renderTargets (ricochet targets, text)", () => {
  it.each([
    {
      case: "breakers off, a failing target: says they are off, shows its failures",
      breakersOn: false,
      targets: [failing],
      shows: [/^Circuit breakers are off/, /partner\.example.*15\/15 \(100%\).*HTTP 503.*10s ago/],
      hides: ["No target has failed yet", "state", "deferred"],
    },
    {
      case: "breakers off, nothing failed: says both",
      breakersOn: false,
      targets: [],
      shows: [/^Circuit breakers are off/, /No target has failed yet\.$/],
      hides: ["┌"],
    },
    {
      case: "breakers on, a failing target: its breaker's state and no word of them being off",
      breakersOn: true,
      targets: [failing],
      shows: [/│ state/, /partner\.example.*closed.*15\/15 \(100%\).*HTTP 503/],
      hides: ["Circuit breakers are off"],
    },
    {
      case: "breakers on, a recovered target: says when its last error happened",
      breakersOn: true,
      targets: [recovered],
      shows: [/│ last failed/, /partner\.example.*closed.*0\/0.*HTTP 503.*5m ago/],
      hides: ["Circuit breakers are off"],
    },
    {
      case: "a target held back: the instances' summed learned rate, its ceiling and why",
      breakersOn: true,
      targets: [throttled],
      shows: [/│ learned limit/, /18\/s over 2 instances.*100\/s.*overload.*12s ago/],
      hides: ["at ceiling"],
    },
    {
      case: "breakers off, a target at its ceiling: says so",
      breakersOn: false,
      targets: [failing],
      shows: [/│ learned limit/, /partner\.example.*at ceiling/],
      hides: ["overload"],
    },
    {
      case: "breakers on, nothing failed",
      breakersOn: true,
      targets: [],
      shows: [/^No target has failed yet\.$/],
      hides: ["Circuit breakers are off"],
    },
  ])("$case", ({ breakersOn, targets, shows, hides }) => {
    const text = renderTargets({ nowMs: NOW_MS, breakersOn })(targets);
    for (const pattern of shows) expect(text).toMatch(pattern);
    for (const absent of hides) expect(text).not.toContain(absent);
  });
});

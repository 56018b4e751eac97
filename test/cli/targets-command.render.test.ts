import { describe, expect, it } from "vitest";
import { renderTargets } from "../../lib/cli/targets-command.js";
import type { TargetReport } from "../../lib/core/target-report.js";

const NOW_MS = Date.parse("2030-01-01T06:00:00.000Z");

const failing: TargetReport = {
  target: "http:https://partner.example:443",
  state: "closed",
  calls: 15,
  failures: 15,
  failureRate: 1,
  deferred: 0,
  lastError: "HTTP 503: upstream down",
  lastErrorAt: "2030-01-01T05:59:50.000Z",
  updatedAt: "2030-01-01T05:59:50.000Z",
};

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
      hides: ["Circuit breakers are off", "last failed"],
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

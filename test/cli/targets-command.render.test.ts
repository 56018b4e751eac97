import { describe, expect, it } from "vitest";
import { renderTargets } from "../../lib/cli/targets-command.js";
import { aTargetReport, FIXED_NOW_MS } from "../support/factories.js";

const NOW_MS = FIXED_NOW_MS;

const failing = aTargetReport();

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

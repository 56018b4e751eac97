import { describe, expect, it } from "vitest";
import { targetsPage } from "../../lib/console/targets-page.js";
import type { TargetReport } from "../../lib/core/target-report.js";
import { aTargetReport, FIXED_NOW_MS } from "../support/factories.js";

const NOW_MS = FIXED_NOW_MS;

const failing = aTargetReport({ lastError: "HTTP 503: <b>down</b>" });

const page = async (targets: readonly TargetReport[], breakersOn: boolean): Promise<string> =>
  String(await targetsPage(targets, { nowMs: NOW_MS, breakersOn }));

describe("targets page", () => {
  it("says the breakers are off and still lists a failing target's failures (issue #36)", async () => {
    const shown = await page([failing], false);
    expect(shown).toContain('data-breakers="off"');
    expect(shown).toContain("Circuit breakers are off");
    expect(shown).toMatch(/<td>15\/15 \(100%\)<\/td>/);
    expect(shown).toContain("10s ago");
    expect(shown).toContain("HTTP 503: &lt;b&gt;down&lt;/b&gt;");
    expect(shown).not.toContain("No target has failed yet");
    expect(shown).not.toContain("<th>state</th>");
  });

  it("says the breakers are off when nothing has failed", async () => {
    const shown = await page([], false);
    expect(shown).toContain("Circuit breakers are off");
    expect(shown).toContain("No target has failed yet.");
  });

  it("shows a breaker's state, and no word of breakers being off, when they are on", async () => {
    const shown = await page([failing], true);
    expect(shown).toContain('<td data-state="closed">closed</td>');
    expect(shown).not.toContain("Circuit breakers are off");
  });
});

import { describe, expect, it } from "vitest";
import { targetsPage } from "../../lib/console/targets-page.js";
import type { ActivitySample } from "../../lib/console/targets-view.js";
import { LimitChange } from "../../lib/core/adaptive-limit.js";
import type { TargetReport } from "../../lib/core/target-report.js";
import { aTargetReport, FIXED_NOW_MS } from "../support/factories.js";

const NOW_MS = FIXED_NOW_MS;
const REFRESH_SECONDS = 7;

const failing = aTargetReport({ lastError: "HTTP 503: <b>down</b>" });

const NO_ACTIVITY: ActivitySample = {
  targets: [],
  minutes: 60,
  maxRecordsRead: 2000,
  cutShort: false,
};

const page = async (
  targets: readonly TargetReport[],
  breakersOn: boolean,
  activity: ActivitySample = NO_ACTIVITY,
): Promise<string> =>
  String(
    await targetsPage({ reports: targets, nowMs: NOW_MS, breakersOn }, activity, REFRESH_SECONDS),
  );

describe("targets page", () => {
  it("shows a held-back target's learned limit, its ceiling and why it last changed", async () => {
    const throttled = aTargetReport({
      learned: {
        callsPerSecond: 4.25,
        instances: 1,
        ceilingPerSecond: 50,
        maxConcurrentCalls: 5,
        reason: LimitChange.RETRY_AFTER,
        changedAt: new Date(NOW_MS - 3_000).toISOString(),
      },
    });
    const shown = await page([throttled, failing], true);
    expect(shown).toContain("<th>learned limit</th>");
    expect(shown).toMatch(
      /data-learned="yes">4\.3\/s over 1 instance<\/td>\s*<td>50\/s<\/td><td>Retry-After<\/td><td>3s ago<\/td>/,
    );
    expect(shown).toMatch(/data-learned="no">at ceiling</);
  });

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

  it("says when a recovered target's last error happened, so an old outage is not read as now", async () => {
    const recovered = aTargetReport({
      calls: 0,
      failures: 0,
      failureRate: undefined,
      lastErrorAt: new Date(NOW_MS - 300_000).toISOString(),
    });
    const shown = await page([recovered], true);
    expect(shown).toContain("<th>last failed</th>");
    expect(shown).toMatch(/<td>0\/0<\/td>[\s\S]*<td>HTTP 503: upstream down<\/td><td>5m ago<\/td>/);
  });

  it("refreshes its breaker table at the console's pace and its charts once a minute", async () => {
    const shown = await page([failing], true);
    expect(shown).toContain(
      '<div id="target-table" hx-get="/targets/table" hx-trigger="every 7s" hx-swap="outerHTML">',
    );
    expect(shown).toContain(
      '<div id="target-activity" hx-get="/targets/activity" hx-trigger="every 60s" hx-swap="outerHTML">',
    );
  });

  it("says what its charts were drawn from, and that the table holds more when the read was cut", async () => {
    const whole = await page([], true);
    expect(whole).toContain(
      "Last 60 min, from the attempt history of at most 2000 event records read.",
    );
    expect(whole).toContain("No attempt finished in the last 60 min among the records read.");
    expect(whole).not.toContain("the table holds more");
    const cut = await page([], true, { ...NO_ACTIVITY, cutShort: true });
    expect(cut).toContain('data-cut-short="true"');
    expect(cut).toContain("the table holds more: events outside those read are not counted");
  });
});

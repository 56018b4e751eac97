import { describe, expect, it } from "vitest";
import {
  latencyChart,
  latencyText,
  outcomeChart,
  targetActivitySection,
} from "../../lib/console/target-charts.js";
import type { TargetActivity } from "../../lib/core/target-activity.js";
import { FIXED_NOW_MS } from "../support/factories.js";

const HOSTILE = 'group:<script>alert("x")</script>&"';

const activity = (target: string): TargetActivity => ({
  target,
  minutes: [
    {
      startMs: FIXED_NOW_MS,
      counts: { delivered: 0, retried: 2, failed: 1, deferred: 0 },
      latency: { calls: 3, p50: 3_000, p90: 5_000, p99: 5_000 },
    },
    {
      startMs: FIXED_NOW_MS + 60_000,
      counts: { delivered: 4, retried: 0, failed: 0, deferred: 1 },
      latency: { calls: 4, p50: 40, p90: 90, p99: 90 },
    },
  ],
  totals: { delivered: 4, retried: 2, failed: 1, deferred: 1 },
  latency: { calls: 7, p50: 90, p90: 5_000, p99: 5_000 },
});

describe("a target's charts", () => {
  it("gives every outcome bar a title saying its minute, count and kind", async () => {
    const svg = String(await outcomeChart(activity("http:https://partner.example:443")));
    expect(svg).toContain('<svg class="chart" role="img"');
    expect(svg).toContain("<title>00:00 UTC: 2 retried</title>");
    expect(svg).toContain("<title>00:01 UTC: 4 delivered</title>");
    expect(svg).toContain("<title>00:01 UTC: 1 deferred</title>");
    expect(svg.match(/<rect /g)).toHaveLength(4);
  });

  it("draws a line and a titled point per minute for each percentile", async () => {
    const svg = String(await latencyChart(activity("http:https://partner.example:443")));
    for (const p of ["p50", "p90", "p99"]) {
      expect(svg).toContain(`data-percentile="${p}"`);
    }
    expect(svg).toContain("<title>00:00 UTC: p99 5000 ms</title>");
    expect(svg.match(/<circle /g)).toHaveLength(6);
  });

  it("shows a producer's hostile target name as inert text in headings, labels and titles", async () => {
    const section = String(await targetActivitySection(activity(HOSTILE)));
    expect(section).not.toContain("<script>");
    expect(section).toContain("group:&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&quot;");
    expect(section).toContain('aria-label="Outcomes per minute at group:&lt;script&gt;');
  });

  it.each([
    [0, "0 ms"],
    [999, "999 ms"],
    [1_000, "1.0 s"],
    [4_965, "5.0 s"],
    [12_340, "12.3 s"],
  ])("writes a latency of %i ms on the scale as %s", (ms, text) => {
    expect(latencyText(ms)).toBe(text);
  });
});

import { describe, expect, it } from "vitest";
import { eventTimeline } from "../../lib/console/event-timeline.js";
import {
  timelineAxis,
  timelineBars,
  timelineChart,
  waitBars,
} from "../../lib/console/timeline-bars.js";
import { anAttemptEntry, anEventRecord, FIXED_NOW_MS } from "../support/factories.js";

const iso = (ms: number): string => new Date(ms).toISOString();
const T = FIXED_NOW_MS;

describe("a wait drawn on the time axis", () => {
  it.each<[string, number, number, [string, number, number][]]>([
    ["within one SQS delay: one wait", 30, 900, [["wait", 0, 30_000]]],
    ["exactly one SQS delay: one wait", 900, 900, [["wait", 0, 900_000]]],
    [
      "longer: a wait, then a hop per further SQS delay",
      2_000,
      900,
      [
        ["wait", 0, 900_000],
        ["hop", 900_000, 1_800_000],
        ["hop", 1_800_000, 2_000_000],
      ],
    ],
    [
      "a local run's short hops",
      25,
      10,
      [
        ["wait", 0, 10_000],
        ["hop", 10_000, 20_000],
        ["hop", 20_000, 25_000],
      ],
    ],
  ])("%s", (_, delaySeconds, hopSeconds, expected) => {
    expect(waitBars(0, delaySeconds, hopSeconds).map((b) => [b.kind, b.startMs, b.endMs])).toEqual(
      expected,
    );
  });
});

describe("an event's timeline as bars", () => {
  const record = anEventRecord({
    status: "retry_scheduled",
    history: [
      anAttemptEntry({
        attempt: 1,
        claimedAt: iso(T),
        sentAt: iso(T + 10),
        finishedAt: iso(T + 110),
        outcome: "retryable",
        delaySeconds: 4,
      }),
      anAttemptEntry({
        attempt: 2,
        claimedAt: iso(T + 4_200),
        sentAt: iso(T + 4_210),
        finishedAt: iso(T + 4_300),
        outcome: "retryable",
        statusCode: 429,
        delaySeconds: 7,
      }),
    ],
    redrives: [],
    deferral: {
      cause: "breaker_open",
      targetKey: "http:https://receiver.example.com:443",
      at: iso(T + 11_400),
    },
    nextAttemptAt: iso(T + 20_000),
  });

  it("draws each attempt with its call inside it, the waits after them and the deferral until due", () => {
    const bars = timelineBars(eventTimeline(record), record, T + 12_000);
    expect(bars.map((b) => [b.kind, b.startMs - T, b.endMs - T])).toEqual([
      ["attempt", 0, 110],
      ["call", 10, 110],
      ["wait", 110, 4_110],
      ["attempt", 4_200, 4_300],
      ["call", 4_210, 4_300],
      ["wait", 4_300, 11_300],
      ["deferral", 11_400, 20_000],
    ]);
    expect(bars[3]?.label).toBe("attempt 2: retryable HTTP 429, HTTP 503");
    expect(bars[6]?.label).toContain("circuit breaker open");
    expect(timelineAxis(bars)).toEqual({ startMs: T, endMs: T + 20_000 });
  });

  it("draws the attempt running now up to now, and an operator's action as a mark", () => {
    const running = anEventRecord({
      currentAttempt: { attempt: 1, worker: "worker-9", claimedAt: iso(T + 1_000) },
      audit: [{ at: iso(T), by: "ana", action: "replayed", reason: "partner asked" }],
    });
    const bars = timelineBars(eventTimeline(running), running, T + 3_000);
    expect(bars.map((b) => [b.kind, b.startMs - T, b.endMs - T])).toEqual([
      ["action", 0, 0],
      ["running", 1_000, 3_000],
    ]);
    expect(bars[0]?.label).toBe("replayed by ana: partner asked");
  });

  it("gives every bar an escaped title: a receiver's or an operator's text stays inert", async () => {
    const hostile = anEventRecord({
      history: [
        anAttemptEntry({ outcome: "permanent", message: '<img src=x onerror="alert(1)">' }),
      ],
      audit: [
        {
          at: iso(T),
          by: "<b>mallory</b>",
          action: "cancelled",
          reason: "</title><script>x()</script>",
        },
      ],
    });
    const svg = String(await timelineChart(timelineBars(eventTimeline(hostile), hostile, T)));
    expect(svg).not.toMatch(/<img|<script|<b>/);
    expect(svg).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(svg).toContain("&lt;/title&gt;&lt;script&gt;x()&lt;/script&gt;");
    expect(svg.match(/<rect /g)).toHaveLength(3);
    expect(svg.match(/<title>/g)).toHaveLength(4);
  });

  it("draws a scheduled event's wait for its first attempt, by hops when it is far off", () => {
    const scheduled = anEventRecord({
      status: "scheduled",
      createdAt: iso(T),
      nextAttemptAt: iso(T + 2_000_000),
    });
    const bars = timelineBars(eventTimeline(scheduled), scheduled, T);
    expect(bars.map((b) => [b.kind, b.startMs - T, b.endMs - T])).toEqual([
      ["wait", 0, 900_000],
      ["hop", 900_000, 1_800_000],
      ["hop", 1_800_000, 2_000_000],
    ]);
    expect(bars[0]?.label).toBe("scheduled: first attempt due in 33m 20s");
  });

  it("draws nothing for an event with nothing on its timeline", async () => {
    const empty = anEventRecord();
    expect(String(await timelineChart(timelineBars(eventTimeline(empty), empty, T)))).toBe("");
  });
});

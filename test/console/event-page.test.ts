import { describe, expect, it } from "vitest";
import { eventPage } from "../../lib/console/event-page.js";
import { DEFAULT_POLICY } from "../../lib/core/policy.js";
import { anAttemptEntry, anEventRecord, FIXED_NOW_MS } from "../support/factories.js";

describe("eventPage", () => {
  it("escapes what a target or an operator wrote, so a record cannot script the page", () => {
    const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
    const page = String(
      eventPage(
        anEventRecord({
          history: [anAttemptEntry({ message: hostile })],
          audit: [
            { at: "2030-01-01T00:00:09.000Z", by: hostile, action: "cancelled", reason: hostile },
          ],
          lastOutcome: { class: "permanent", message: hostile },
        }),
        DEFAULT_POLICY,
      ),
    );
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("<img");
    expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });

  it("draws the timeline as bars on a time axis above its list", () => {
    const page = String(
      eventPage(
        anEventRecord({ history: [anAttemptEntry({ delaySeconds: 4 })] }),
        DEFAULT_POLICY,
        FIXED_NOW_MS,
      ),
    );
    const chart = page.indexOf('<svg class="chart timeline-chart"');
    expect(chart).toBeGreaterThan(-1);
    expect(chart).toBeLessThan(page.indexOf('<ol class="timeline">'));
    expect([...page.matchAll(/data-kind="(\w+)"/g)].map((m) => m[1])).toEqual([
      "attempt",
      "call",
      "wait",
    ]);
  });

  it("loads no script but the console's own htmx and its own script", () => {
    const page = String(eventPage(anEventRecord(), DEFAULT_POLICY));
    expect([...page.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script src="/assets/htmx.min.js" defer>',
      '<script src="/assets/console.js" defer>',
    ]);
  });

  it("says a deferred event is deferred, why, and when it is tried next (issue #36)", () => {
    const page = String(
      eventPage(
        anEventRecord({
          status: "pending",
          nextAttemptAt: "2030-01-01T00:05:00.000Z",
          deferral: {
            cause: "rate_limit",
            targetKey: "group:partner",
            at: "2030-01-01T00:00:09.000Z",
          },
        }),
        DEFAULT_POLICY,
      ),
    );
    expect(page).toContain(
      '<td data-fact="deferred">at its rate limit for target group:partner (deferred 2030-01-01T00:00:09.000Z)</td>',
    );
    expect(page).toContain('<td data-fact="next attempt">2030-01-01T00:05:00.000Z</td>');
  });

  it("labels a run that made no call as such, not as an attempt", () => {
    const page = String(
      eventPage(
        anEventRecord({
          history: [anAttemptEntry({ attempt: 0, noCall: true, outcome: "permanent" })],
        }),
        DEFAULT_POLICY,
      ),
    );
    expect(page).toContain("<strong>No call</strong>");
    expect(page).not.toContain("Attempt 0");
  });

  it("shows what ricochet status shows: conflicts, the envelope, a pending dead-letter, the due time (issue #36)", () => {
    const page = String(
      eventPage(
        anEventRecord({
          status: "scheduled",
          nextAttemptAt: "2030-01-01T06:30:00.000Z",
          envelopeDigest: "ab".repeat(32),
          conflicts: { count: 2, lastAt: "2030-01-01T00:00:05.000Z", lastDigest: "cd".repeat(32) },
          pendingDeadLetter: {
            reason: "exhausted",
            entry: anAttemptEntry(),
            lastOutcome: { class: "retryable", message: "HTTP 503" },
            generation: 0,
            attempts: 3,
            decidedAt: "2030-01-01T00:00:07.000Z",
          },
        }),
        DEFAULT_POLICY,
        FIXED_NOW_MS,
      ),
    );
    expect(page).toContain(
      '<td data-fact="status">scheduled, due 2030-01-01T06:30:00.000Z (in 6h 30m)</td>',
    );
    expect(page).toContain('<td data-fact="envelope">abababababababab</td>');
    expect(page).toContain(
      '<td data-fact="conflicting resubmissions">2 (last 2030-01-01T00:00:05.000Z, envelope cdcdcdcdcdcdcdcd)</td>',
    );
    expect(page).toContain(
      '<td data-fact="dead-letter pending">exhausted, decided 2030-01-01T00:00:07.000Z</td>',
    );
  });
});

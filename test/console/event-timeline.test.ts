import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventTimeline, plannedBesideActual } from "../../lib/console/event-timeline.js";
import { delayRange } from "../../lib/core/backoff.js";
import { REDACTED } from "../../lib/core/redact.js";
import { ANA_CALLER } from "../support/counting-caller-identity.js";
import { anAttemptEntry, anEventRecord, aPolicy } from "../support/factories.js";

const at = (seconds: number): string => new Date(Date.UTC(2030, 0, 1, 0, 0, seconds)).toISOString();

describe("eventTimeline", () => {
  it("puts attempts, the running attempt and operator actions in time order", () => {
    const record = anEventRecord({
      history: [
        anAttemptEntry({ attempt: 1, claimedAt: at(0), finishedAt: at(1), delaySeconds: 5 }),
        anAttemptEntry({ attempt: 2, claimedAt: at(20), finishedAt: at(21) }),
      ],
      redrives: [
        {
          at: at(10),
          by: "ana",
          caller: ANA_CALLER,
          reason: "fixed",
          previousStatus: "dead_lettered",
          previousAttempts: 1,
          attemptBudget: 2,
        },
      ],
      audit: [
        { at: at(30), by: "bo", action: "replayed", reason: "again", previousStatus: "delivered" },
      ],
      currentAttempt: { attempt: 3, worker: "w-3", claimedAt: at(31) },
    });
    expect(eventTimeline(record).map((item) => [item.kind, item.at])).toEqual([
      ["attempt", at(0)],
      ["audit", at(10)],
      ["attempt", at(20)],
      ["audit", at(30)],
      ["running", at(31)],
    ]);
  });

  it("says who AWS says redrove, as `ricochet status` does", () => {
    const record = anEventRecord({
      redrives: [
        {
          at: at(1),
          by: "ana",
          caller: ANA_CALLER,
          reason: "r",
          previousStatus: "dead_lettered",
          previousAttempts: 1,
          attemptBudget: 2,
        },
      ],
    });
    expect(eventTimeline(record)[0]).toMatchObject({
      action: "redriven",
      by: "ana",
      caller: expect.stringContaining("arn:aws:iam::123456789012:user/ana"),
    });
  });

  it("blanks credentials quoted in an attempt's message and an audit reason", () => {
    const record = anEventRecord({
      history: [
        anAttemptEntry({ message: "HTTP 401: sent Authorization: Bearer abcdefgh12345678" }),
      ],
      audit: [
        { at: at(2), by: "bo", action: "cancelled", reason: "token Basic dXNlcjpwYXNzd29yZA==" },
      ],
    });
    const text = JSON.stringify(eventTimeline(record));
    expect(text).not.toContain("abcdefgh12345678");
    expect(text).not.toContain("dXNlcjpwYXNzd29yZA==");
    expect(text).toContain(REDACTED);
  });
});

describe("plannedBesideActual", () => {
  it("lists every retry the policy plans, with the delay each attempt drew beside it", () => {
    const policy = aPolicy({ maxAttempts: 4, baseDelaySeconds: 2, jitter: "full" });
    const record = anEventRecord({
      history: [
        anAttemptEntry({ attempt: 1, delaySeconds: 1 }),
        anAttemptEntry({ attempt: 2, delaySeconds: 9 }),
      ],
    });
    expect(plannedBesideActual(record, policy)).toEqual([
      { retry: 1, plannedMinSeconds: 0, plannedMaxSeconds: 2, actualSeconds: 1, verdict: "within" },
      { retry: 2, plannedMinSeconds: 0, plannedMaxSeconds: 4, actualSeconds: 9, verdict: "above" },
      {
        retry: 3,
        plannedMinSeconds: 0,
        plannedMaxSeconds: 8,
        actualSeconds: undefined,
        verdict: undefined,
      },
    ]);
  });

  it("judges a drawn delay against the range the policy draws it from", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("none", "full", "equal", "decorrelated"),
        fc.array(fc.integer({ min: 0, max: 2000 }), { minLength: 1, maxLength: 7 }),
        (jitter, delays) => {
          const policy = aPolicy({ maxAttempts: 8, jitter });
          const history = delays.map((delaySeconds, i) =>
            anAttemptEntry({ attempt: i + 1, delaySeconds }),
          );
          const rows = plannedBesideActual(anEventRecord({ history }), policy);
          expect(rows).toHaveLength(7);
          for (const [i, delay] of delays.entries()) {
            const range = delayRange(policy, i + 1, delays[i - 1]);
            const row = rows[i];
            expect(row?.actualSeconds).toBe(delay);
            expect(row?.verdict).toBe(
              delay > range.maxSeconds ? "above" : delay < range.minSeconds ? "below" : "within",
            );
          }
        },
      ),
    );
  });

  it("extends past the policy's retries when the record holds more (a redrive's budget)", () => {
    const policy = aPolicy({ maxAttempts: 2 });
    const history = [1, 2, 3].map((attempt) => anAttemptEntry({ attempt, delaySeconds: 1 }));
    expect(plannedBesideActual(anEventRecord({ history }), policy).map((r) => r.retry)).toEqual([
      1, 2, 3,
    ]);
  });
});

import { describe, expect, it } from "vitest";
import {
  CANCELLABLE_STATUSES,
  cancelledRecord,
  judgeCancel,
  mayRecordCancel,
} from "../../lib/core/cancel-rule.js";
import { AuditAction, type EventRecord, type PendingDeadLetter } from "../../lib/core/record.js";
import { ALL_STATUSES, canTransition, EventStatus } from "../../lib/core/status.js";
import { anAttemptEntry, anEventRecord, FIXED_NOW_MS } from "../support/factories.js";

const NOW = FIXED_NOW_MS;
const at = (overrides: Partial<EventRecord>): EventRecord =>
  anEventRecord({ generation: 2, attempts: 2, ...overrides });
const pendingDeadLetter: PendingDeadLetter = {
  reason: "exhausted",
  entry: anAttemptEntry(),
  lastOutcome: { class: "retryable", message: "HTTP 503" },
  generation: 2,
  attempts: 2,
  decidedAt: new Date(NOW).toISOString(),
};
const audit = {
  at: new Date(NOW).toISOString(),
  by: "ops",
  action: AuditAction.CANCELLED,
  reason: "customer withdrew the order",
};

describe("judgeCancel", () => {
  it.each([
    ["a pending event", at({ status: EventStatus.PENDING }), null],
    ["an event waiting for a retry", at({ status: EventStatus.RETRY_SCHEDULED }), null],
    ["an event scheduled for later", at({ status: EventStatus.SCHEDULED }), null],
    ["an unknown event", undefined, "no record"],
    ["a delivered event", at({ status: EventStatus.DELIVERED }), "already delivered"],
    ["a cancelled event", at({ status: EventStatus.CANCELLED }), "already cancelled"],
    ["a rejected event", at({ status: EventStatus.REJECTED }), "already rejected"],
    ["a dead-lettered event", at({ status: EventStatus.DEAD_LETTERED }), "already dead_lettered"],
    [
      "an event under a live lease",
      at({ status: EventStatus.IN_FLIGHT, leaseExpiresAt: NOW + 1_000 }),
      "an attempt is in flight (lease until",
    ],
    [
      "an event whose lease expired",
      at({ status: EventStatus.IN_FLIGHT, leaseExpiresAt: NOW - 1 }),
      "its worker stopped",
    ],
    [
      "a waiting event with a dead-letter decision being finished",
      at({ status: EventStatus.RETRY_SCHEDULED, pendingDeadLetter }),
      "dead-letter decision",
    ],
  ])("%s: refused because %s", (_, record, refusal) => {
    const verdict = judgeCancel(record, NOW);
    if (refusal === null) expect(verdict).toEqual({ kind: "cancel", record });
    else
      expect(verdict).toMatchObject({ kind: "refuse", reason: expect.stringContaining(refusal) });
  });

  it("accepts exactly the cancellable statuses, each a legal move to cancelled", () => {
    for (const status of ALL_STATUSES) {
      const accepted = judgeCancel(at({ status, leaseExpiresAt: NOW - 1 }), NOW).kind === "cancel";
      expect(accepted, status).toBe(CANCELLABLE_STATUSES.has(status));
      expect(canTransition(status, EventStatus.CANCELLED), status).toBe(accepted);
    }
  });
});

describe("mayRecordCancel", () => {
  const waiting = at({ status: EventStatus.RETRY_SCHEDULED });
  it.each([
    ["the record as judged", waiting, EventStatus.RETRY_SCHEDULED, 2, true],
    ["no record", undefined, EventStatus.RETRY_SCHEDULED, 2, false],
    [
      "a claim in between",
      at({ status: EventStatus.IN_FLIGHT }),
      EventStatus.RETRY_SCHEDULED,
      2,
      false,
    ],
    [
      "a retry recorded in between",
      at({ status: EventStatus.RETRY_SCHEDULED, generation: 3 }),
      EventStatus.RETRY_SCHEDULED,
      2,
      false,
    ],
    [
      "a status the rule refuses, even if expected",
      at({ status: EventStatus.DELIVERED }),
      EventStatus.DELIVERED,
      2,
      false,
    ],
    [
      "a dead-letter decision noted in between",
      at({ status: EventStatus.RETRY_SCHEDULED, pendingDeadLetter }),
      EventStatus.RETRY_SCHEDULED,
      2,
      false,
    ],
  ])("%s: lands %s", (_, old, expectedStatus, generation, lands) => {
    expect(mayRecordCancel(old, { expectedStatus, generation })).toBe(lands);
  });
});

describe("cancelledRecord", () => {
  it("is terminal with the audit entry appended and a TTL, keeping the event's history", () => {
    const old = at({
      status: EventStatus.RETRY_SCHEDULED,
      nextAttemptAt: new Date(NOW + 60_000).toISOString(),
      history: [anAttemptEntry()],
    });
    const record = cancelledRecord(old, {
      eventId: old.eventId,
      expectedStatus: old.status,
      generation: old.generation,
      audit,
      nowMs: NOW,
      retentionSeconds: 86_400,
    });
    expect(record).toMatchObject({
      status: EventStatus.CANCELLED,
      generation: 2,
      history: old.history,
      audit: [audit],
      nextAttemptAt: undefined,
      expiresAt: NOW / 1000 + 86_400,
    });
  });
});

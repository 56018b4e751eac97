import { describe, expect, it } from "vitest";
import type { Envelope } from "../../lib/core/envelope.js";
import { envelopeDigest } from "../../lib/core/envelope-digest.js";
import { AuditAction, type EventRecord } from "../../lib/core/record.js";
import { judgeReplay, mayRecordReplay, replayedRecord } from "../../lib/core/replay-rule.js";
import { ALL_STATUSES, EventStatus } from "../../lib/core/status.js";
import { anEnvelope, anEventRecord, aPolicy, FIXED_NOW_MS } from "../support/factories.js";

const NOW = FIXED_NOW_MS;
const envelope = anEnvelope();
const delivered = (overrides: Partial<EventRecord> = {}): EventRecord =>
  anEventRecord({
    eventId: envelope.eventId,
    status: EventStatus.DELIVERED,
    generation: 1,
    attempts: 2,
    envelopeDigest: envelopeDigest(envelope),
    ...overrides,
  });
const other: Envelope = { ...envelope, payload: { another: "payload" } };
const policy = aPolicy();
const late: Envelope = { ...envelope, deadline: new Date(NOW - 1).toISOString() };

describe("judgeReplay", () => {
  it.each([
    ["a delivered event with its envelope", delivered(), envelope, policy, null],
    ["a record from before digests", delivered({ envelopeDigest: undefined }), other, policy, null],
    ["an unknown event", undefined, envelope, policy, "no record"],
    ["another envelope under its id", delivered(), other, policy, "not the envelope"],
    [
      "a dead-lettered event",
      delivered({ status: EventStatus.DEAD_LETTERED }),
      envelope,
      policy,
      "`ricochet redrive` sends it again",
    ],
    [
      "an event past its envelope's deadline",
      delivered({ envelopeDigest: envelopeDigest(late) }),
      late,
      policy,
      "deadline passed",
    ],
    [
      "an event past its policy's deadline, counted from its first claim",
      delivered({ createdAt: new Date(NOW - 61_000).toISOString() }),
      envelope,
      aPolicy({ deadlineSeconds: 60 }),
      "deadline passed",
    ],
  ])("%s: refused because %s", (_, record, offered, p, refusal) => {
    const verdict = judgeReplay(record, offered, p, NOW);
    if (refusal === null) expect(verdict).toEqual({ kind: "replay", record });
    else
      expect(verdict).toMatchObject({ kind: "refuse", reason: expect.stringContaining(refusal) });
  });

  it("replays a delivered event only", () => {
    for (const status of ALL_STATUSES)
      expect(judgeReplay(delivered({ status }), envelope, policy, NOW).kind, status).toBe(
        status === EventStatus.DELIVERED ? "replay" : "refuse",
      );
  });
});

describe("mayRecordReplay", () => {
  it.each([
    ["the delivered record one generation below", delivered(), 2, true],
    [
      "another replay recorded first",
      delivered({ status: EventStatus.PENDING, generation: 2 }),
      2,
      false,
    ],
    ["the same generation again", delivered({ generation: 2 }), 2, false],
    ["no record", undefined, 2, false],
  ])("%s: lands %s", (_, old, generation, lands) => {
    expect(mayRecordReplay(old, generation)).toBe(lands);
  });
});

describe("replayedRecord", () => {
  it("is pending at the new generation with the budget, one more replay and the audit entry", () => {
    const audit = {
      at: new Date(NOW).toISOString(),
      by: "ops",
      action: AuditAction.REPLAYED,
      reason: "receiver lost its database",
    };
    const old = delivered({ replays: 1, expiresAt: NOW / 1000 + 10 });
    expect(
      replayedRecord(old, {
        eventId: old.eventId,
        generation: 2,
        attemptBudget: 7,
        audit,
        nowMs: NOW,
      }),
    ).toMatchObject({
      status: EventStatus.PENDING,
      generation: 2,
      attemptBudget: 7,
      attempts: 2,
      replays: 2,
      audit: [audit],
      expiresAt: undefined,
    });
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEAD_LETTER_KIND,
  DEAD_LETTER_VERSION,
  type DeadLetterSummary,
} from "../../lib/core/dead-letter.js";
import { verifyDeadLetterCopy } from "../../lib/core/dead-letter-verification.js";
import type { EventRecord } from "../../lib/core/record.js";
import { anAttemptEntry, anEventRecord } from "../support/factories.js";

const DECIDED_AT = "2030-01-01T00:00:08.000Z";

/** A copy as the orchestrator sends it after the 8th attempt failed at generation 7. */
const aCopy = (overrides: Partial<DeadLetterSummary> = {}): DeadLetterSummary => ({
  kind: DEAD_LETTER_KIND,
  version: DEAD_LETTER_VERSION,
  reason: "exhausted",
  eventId: "e-1",
  attempts: 8,
  generation: 7,
  deadLetteredAt: DECIDED_AT,
  ...overrides,
});

/** The record that copy's dead-lettering leaves. */
const deadLettered = (overrides: Partial<EventRecord> = {}): EventRecord =>
  anEventRecord({
    eventId: "e-1",
    status: "dead_lettered",
    deadLetterReason: "exhausted",
    attempts: 8,
    attemptBudget: 8,
    generation: 7,
    history: [
      anAttemptEntry({ attempt: 7 }),
      anAttemptEntry({ attempt: 8, finishedAt: DECIDED_AT }),
    ],
    ...overrides,
  });

describe("verifyDeadLetterCopy", () => {
  it.each<[string, DeadLetterSummary, EventRecord | undefined]>([
    ["the copy of the record's dead-lettering", aCopy(), deadLettered()],
    [
      "a rejection's copy",
      aCopy({ reason: "rejected" }),
      deadLettered({ status: "rejected", deadLetterReason: "rejected" }),
    ],
    [
      "an earlier dead-lettering's copy, the event redriven since",
      aCopy(),
      deadLettered({ status: "pending", generation: 8, deadLetterReason: undefined }),
    ],
    [
      "a copy sent before the end was recorded (the decision still pending)",
      aCopy(),
      deadLettered({
        status: "in_flight",
        deadLetterReason: undefined,
        history: [anAttemptEntry({ attempt: 7 })],
        pendingDeadLetter: {
          reason: "exhausted",
          entry: anAttemptEntry({ attempt: 8, finishedAt: DECIDED_AT }),
          lastOutcome: { class: "retryable", message: "HTTP 503" },
          generation: 7,
          attempts: 8,
          decidedAt: DECIDED_AT,
        },
      }),
    ],
    [
      "a copy whose decision a takeover finished (the record counts the takeover's claims too)",
      aCopy(),
      deadLettered({ attempts: 10 }),
    ],
    [
      "an invalid envelope recorded under its id",
      aCopy({ reason: "invalid_envelope", attempts: 0, generation: 2 }),
      deadLettered({ status: "rejected", deadLetterReason: "invalid_envelope", generation: 0 }),
    ],
    [
      "a native move of a stranded event",
      aCopy({ reason: "unprocessed", attempts: 0, generation: 7 }),
      deadLettered({ status: "in_flight", deadLetterReason: undefined }),
    ],
  ])("verifies %s", (_name, copy, record) => {
    expect(verifyDeadLetterCopy(copy, record)).toEqual({ verified: true });
  });

  it.each<[string, DeadLetterSummary, EventRecord | undefined, RegExp]>([
    ["a copy of an event Ricochet has no record of", aCopy(), undefined, /no record of event e-1/],
    ["a copy naming no event", aCopy({ eventId: undefined }), deadLettered(), /names no event/],
    [
      "a copy read against another event's record",
      aCopy(),
      deadLettered({ eventId: "e-2" }),
      /no record of event e-1/,
    ],
    ["a forged attempt count", aCopy({ attempts: 3 }), deadLettered(), /no attempt 3 finished at/],
    [
      "a forged time",
      aCopy({ deadLetteredAt: "2029-06-01T00:00:00.000Z" }),
      deadLettered(),
      /no attempt 8 finished at 2029-06-01/,
    ],
    [
      "a forged reason",
      aCopy({ reason: "deadline" }),
      deadLettered(),
      /record shows dead_lettered \(exhausted\) after attempt 8, not deadline after 8/,
    ],
    [
      "a copy naming an earlier attempt than the one that ended the event",
      aCopy({ attempts: 7, deadLetteredAt: anAttemptEntry().finishedAt }),
      deadLettered(),
      /record shows dead_lettered \(exhausted\) after attempt 8, not exhausted after 7/,
    ],
    [
      "a generation the record never reached",
      aCopy({ generation: 9 }),
      deadLettered(),
      /claims generation 9; the record is at 7/,
    ],
    [
      "a dead-lettering copy of a delivered event at its generation",
      aCopy(),
      deadLettered({ status: "delivered", deadLetterReason: undefined }),
      /record shows delivered/,
    ],
    [
      "a native move claiming a generation ahead of the record",
      aCopy({ reason: "unprocessed", attempts: 0, generation: 8 }),
      deadLettered(),
      /claims generation 8/,
    ],
  ])("does not verify %s, and says why", (_name, copy, record, why) => {
    const verification = verifyDeadLetterCopy(copy, record);
    expect(verification.verified).toBe(false);
    expect(verification.verified ? "" : verification.why).toMatch(why);
  });

  it("verifies no copy whose attempts or time differ from every attempt the record holds", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 0, max: 10_000 }),
        (attempts, offsetMs) => {
          fc.pre(attempts !== 8 || offsetMs !== 0);
          const at = new Date(Date.parse(DECIDED_AT) + offsetMs).toISOString();
          const copy = aCopy({ attempts, deadLetteredAt: at });
          const record = deadLettered({
            history: [anAttemptEntry({ attempt: 8, finishedAt: DECIDED_AT })],
          });
          return !verifyDeadLetterCopy(copy, record).verified;
        },
      ),
    );
  });
});

import { describe, expect, it } from "vitest";
import {
  DEAD_LETTER_KIND,
  DEAD_LETTER_VERSION,
  fitDeadLetter,
} from "../../lib/core/dead-letter.js";
import type { DeadLetterReason } from "../../lib/core/decide.js";
import type { Envelope } from "../../lib/core/envelope.js";
import { envelopeDigest } from "../../lib/core/envelope-digest.js";
import { EventStatus } from "../../lib/core/status.js";
import { AdversaryMark } from "./adversarial-producer.js";
import type { LeftMessage } from "./end-state-checks.js";
import { anEnvelope, anEventRecord } from "./factories.js";
import {
  checkAttemptsCountCalls,
  checkBoundedWork,
  checkCleanedCopies,
  checkCleanRemovalsAudited,
  checkConflictsCounted,
  checkNoDeadLetterForDelivered,
  checkNoForgedCopyMoved,
  checkOnlyAcceptedPayloads,
  checkRecordedFromFirstSight,
  GuaranteeProblem,
  payloadFingerprint,
} from "./guarantee-checks.js";

const envelope = anEnvelope({ eventId: "e1", payload: { origin: "e1" } });
const conflicting: Envelope = { ...envelope, payload: { adversary: AdversaryMark.CONFLICTING } };

const recordOf = (status: EventStatus, fields = {}) =>
  new Map([
    [
      "e1",
      anEventRecord({ eventId: "e1", status, envelopeDigest: envelopeDigest(envelope), ...fields }),
    ],
  ]);

/** A copy as Ricochet sends it: the producer's body, the summary beside it. */
const copyOf = (reason: DeadLetterReason, body = JSON.stringify(envelope)): LeftMessage => {
  const fitted = fitDeadLetter({
    kind: DEAD_LETTER_KIND,
    version: DEAD_LETTER_VERSION,
    reason,
    eventId: "e1",
    body,
    attempts: 1,
    generation: 0,
    deadLetteredAt: "2030-01-01T00:00:00.000Z",
  });
  return {
    body: fitted.body,
    schedule: { generation: 0 },
    summary: JSON.stringify(fitted.summary),
  };
};
/** A body the queue's native redrive parked: no summary. */
const parked = (body: Envelope): LeftMessage => ({
  body: JSON.stringify(body),
  schedule: { generation: 1 },
});

describe("no dead-letter message for a delivered event", () => {
  it.each([
    ["a copy that says it was rejected", copyOf("rejected"), 1],
    ["a copy that says it was exhausted", copyOf("exhausted"), 1],
    ["its accepted envelope parked raw", parked(envelope), 1],
    [
      "an invalid_envelope copy of a forged message (about the message)",
      copyOf("invalid_envelope"),
      0,
    ],
    ["a conflicting resubmission parked raw (about the message)", parked(conflicting), 0],
  ])("%s", (_name, message, found) => {
    const findings = checkNoDeadLetterForDelivered(recordOf(EventStatus.DELIVERED), [message]);
    expect(findings.map((f) => f.problem)).toEqual(
      Array(found).fill(GuaranteeProblem.DEAD_LETTER_FOR_DELIVERED),
    );
  });

  it("says nothing of an event that ends dead-lettered", () => {
    const records = recordOf(EventStatus.DEAD_LETTERED);
    expect(checkNoDeadLetterForDelivered(records, [copyOf("exhausted")])).toEqual([]);
  });
});

describe("copies dlq clean removed", () => {
  // copyOf makes generation-0 copies: the record's generation says whether the event left it.
  it.each([
    ["a decision copy of the generation that was delivered", copyOf("exhausted"), 0, 1],
    ["a rejected copy of the generation that was delivered", copyOf("rejected"), 0, 1],
    ["a decision copy of a generation redriven since", copyOf("exhausted"), 1, 0],
    ["a raw body parked during a crash loop", parked(envelope), 0, 0],
    ["an invalid_envelope copy of a forged message", copyOf("invalid_envelope"), 0, 0],
  ])("%s", (_name, message, generation, found) => {
    const records = recordOf(EventStatus.DELIVERED, { generation });
    expect(checkCleanedCopies(records, [message]).map((f) => f.problem)).toEqual(
      Array(found).fill(GuaranteeProblem.DEAD_LETTER_FOR_DELIVERED),
    );
  });

  it("says nothing of a copy of an event that ends dead-lettered", () => {
    const records = recordOf(EventStatus.DEAD_LETTERED);
    expect(checkCleanedCopies(records, [copyOf("exhausted")])).toEqual([]);
  });
});

describe("bounded work", () => {
  it.each([
    ["within the budget", 3, 0, 0],
    ["one call over the budget", 4, 0, 1],
    ["one over, after a lease takeover", 4, 1, 0],
    ["two over, after one takeover", 5, 1, 1],
  ])("%s", (_name, calls, takeovers, found) => {
    const records = recordOf(EventStatus.DELIVERED, { attemptBudget: 3 });
    expect(checkBoundedWork([{ eventId: "e1", calls, takeovers }], records)).toHaveLength(found);
  });
});

describe("only the accepted envelope is called", () => {
  const accepted = new Map([["e1", payloadFingerprint(envelope.payload)]]);

  it("flags a call with another payload, whatever its mark", () => {
    const calls = [
      { eventId: "e1", fingerprint: payloadFingerprint(envelope.payload) },
      { eventId: "e1", fingerprint: payloadFingerprint(conflicting.payload) },
    ];
    expect(checkOnlyAcceptedPayloads(calls, accepted).map((f) => f.problem)).toEqual([
      GuaranteeProblem.FOREIGN_PAYLOAD_CALLED,
    ]);
  });

  it("fingerprints a payload as the HTTP adapter sends it", () => {
    expect(payloadFingerprint(undefined)).toBe(payloadFingerprint(null));
    expect(payloadFingerprint({ a: 1 })).not.toBe(payloadFingerprint({ a: 2 }));
  });
});

describe("conflicting resubmissions are counted", () => {
  it.each([
    ["sent once, counted once", 1, 1, [], 0],
    ["sent twice, counted once", 2, 1, [], 1],
    ["sent twice, counted once, one parked raw after a crash loop", 2, 1, [parked(conflicting)], 0],
  ] as const)("%s", (_name, sent, counted, deadLetters, found) => {
    const records = recordOf(EventStatus.DELIVERED, {
      conflicts: { count: counted, lastAt: "2030-01-01T00:00:00.000Z", lastDigest: "d" },
    });
    expect(checkConflictsCounted(records, new Map([["e1", sent]]), deadLetters)).toHaveLength(
      found,
    );
  });
});

describe("checkAttemptsCountCalls (issue #36, finding 6)", () => {
  const runs = (calls: number, claims: number, results: number) => [
    { eventId: "e1", calls, claims, results },
  ];
  it.each<[string, number, ReturnType<typeof runs>, number]>([
    ["an attempt per call", 2, runs(2, 2, 2), 0],
    ["a run whose worker stopped before recording, with or without its call", 3, runs(2, 3, 2), 0],
    ["a claim counted with no call and its result recorded", 2, runs(1, 2, 2), 1],
    ["a call no claim counted", 1, runs(2, 2, 2), 1],
  ])("%s", (_name, attempts, work, expected) => {
    const findings = checkAttemptsCountCalls(
      work,
      recordOf(EventStatus.DEAD_LETTERED, { attempts }),
    );
    expect(findings).toHaveLength(expected);
    for (const finding of findings)
      expect(finding.problem).toBe(GuaranteeProblem.ATTEMPTS_NOT_CALLS);
  });
});

describe("checkRecordedFromFirstSight (issue #36, finding 4)", () => {
  it("names each event acknowledged while it had no record, once", () => {
    expect(
      checkRecordedFromFirstSight([
        { eventId: "e1", recorded: false },
        { eventId: "e1", recorded: false },
        { eventId: "e2", recorded: true },
      ]),
    ).toEqual([
      {
        problem: GuaranteeProblem.UNRECORDED_AT_ACK,
        eventId: "e1",
        detail: "e1: 2 message(s) acknowledged while the event had no record",
      },
    ]);
  });
});

describe("checkNoForgedCopyMoved (issue #31, finding 6)", () => {
  const forged = JSON.stringify(envelope, null, 1);

  it("finds a redriven message whose bytes are a forged copy's, and passes the producer's own", () => {
    expect(
      checkNoForgedCopyMoved(
        [{ body: JSON.stringify(envelope) }, { body: forged }],
        new Set([forged]),
      ),
    ).toEqual([
      expect.objectContaining({ problem: GuaranteeProblem.FORGED_COPY_MOVED, eventId: "e1" }),
    ]);
  });
});

describe("checkCleanRemovalsAudited (issue #31, finding 8)", () => {
  const removal = { at: "2030-01-01T00:00:00.000Z", by: "ops", reason: "clean" } as const;
  const audited = (...messageIds: string[]) =>
    recordOf(EventStatus.DELIVERED, {
      audit: messageIds.map((messageId) => ({
        ...removal,
        action: "dead_letter_copy_removed",
        messageId,
      })),
    });

  it("passes one entry per copy removed, copies of one event counted by message id", () => {
    const removals = [
      { eventId: "e1", messageId: "m1" },
      { eventId: "e1", messageId: "m2" },
    ];
    expect(checkCleanRemovalsAudited(audited("m1", "m2"), removals, new Set())).toEqual([]);
  });

  it("finds an entry for a copy that stayed, and a second entry for one removal", () => {
    const findings = checkCleanRemovalsAudited(
      audited("m1", "m1", "m2"),
      [{ eventId: "e1", messageId: "m1" }],
      new Set(["m1", "m2"]),
    );
    expect(findings.map((f) => f.detail)).toEqual([
      "e1: 2 removal entries for message m1, removed 1 time(s)",
      "e1: 1 removal entry for message m2, removed 0 time(s)",
    ]);
  });

  it("finds a removal without an entry, unless its run said it failed or died", () => {
    const removals = [{ eventId: "e1", messageId: "m1" }];
    expect(checkCleanRemovalsAudited(audited(), removals, new Set())).toHaveLength(1);
    expect(checkCleanRemovalsAudited(audited(), removals, new Set(["m1"]))).toEqual([]);
  });
});

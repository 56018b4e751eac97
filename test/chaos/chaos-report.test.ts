import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEAD_LETTER_KIND,
  DEAD_LETTER_VERSION,
  fitDeadLetter,
} from "../../lib/core/dead-letter.js";
import type { EventRecord } from "../../lib/core/record.js";
import { Invariant } from "../simulation/invariants.js";
import { payloadFingerprint } from "../support/guarantee-checks.js";
import type { ChaosCall } from "./chaos-receiver.js";
import { type ChaosObservation, countOverlaps, judgeChaosRun } from "./chaos-report.js";
import { EventTemper, Reply, replyFor, temperOf } from "./chaos-script.js";
import type { ClaimTraces } from "./claim-trace.js";

const TIMEOUT_MS = 1_000;
const PAYLOAD = { origin: "e1" };

const call = (
  startedAt: number,
  endedAt: number | undefined,
  extra: Partial<ChaosCall> = {},
): ChaosCall => ({
  eventId: "e1",
  fingerprint: payloadFingerprint(PAYLOAD),
  mark: undefined,
  headerEventId: "e1",
  idempotencyKey: "e1",
  attempt: 1,
  reply: Reply.OK,
  startedAt,
  endedAt,
  ...extra,
});

const record = (fields: Partial<EventRecord> = {}): EventRecord => ({
  eventId: "e1",
  status: "delivered",
  generation: 0,
  attempts: 1,
  attemptBudget: 4,
  history: [
    {
      attempt: 1,
      worker: "w",
      claimedAt: "2026-01-01T00:00:00.000Z",
      finishedAt: "2026-01-01T00:00:01.000Z",
      outcome: "success",
      message: "200",
    },
  ],
  redrives: [],
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:01.000Z",
  ...fields,
});

/** The workers' traces: by default e1 claimed once, its result recorded. */
const tracesOf = (overrides: Partial<ClaimTraces> = {}): ClaimTraces => ({
  takeovers: new Map(),
  claims: new Map([["e1", 1]]),
  results: new Map([["e1", 1]]),
  acknowledged: [],
  ...overrides,
});

const observe = (overrides: Partial<ChaosObservation> = {}): ChaosObservation => ({
  eventIds: ["e1"],
  records: new Map([["e1", record()]]),
  ingress: [],
  deadLetters: [],
  calls: [call(0, 100)],
  targetTimeoutMs: TIMEOUT_MS,
  expectDrained: true,
  traces: tracesOf(),
  accepted: new Map([["e1", payloadFingerprint(PAYLOAD)]]),
  conflictsSent: new Map(),
  ...overrides,
});

/** A dead-letter copy of e1 as Ricochet sends it: the body, the summary beside it. */
const deadLetterCopy = (reason: "rejected" | "invalid_envelope") => {
  const { summary, body } = fitDeadLetter({
    kind: DEAD_LETTER_KIND,
    version: DEAD_LETTER_VERSION,
    reason,
    eventId: "e1",
    body: JSON.stringify({ eventId: "e1" }),
    attempts: 1,
    generation: 0,
    deadLetteredAt: "2026-01-01T00:00:01.000Z",
  });
  return { body, schedule: { generation: 0 }, summary: JSON.stringify(summary) };
};

describe("countOverlaps", () => {
  it.each([
    ["one after the other", [call(0, 500), call(600, 700)], 0],
    ["the second starts while the first runs", [call(0, 500), call(400, 700)], 1],
    ["the first never ended but has timed out", [call(0, undefined), call(1_000, 1_200)], 0],
    [
      "the first never ended and is still within its timeout",
      [call(0, undefined), call(999, 1_200)],
      1,
    ],
    ["three at once", [call(0, 900), call(100, 900), call(200, 900)], 3],
    ["order of the log does not matter", [call(400, 700), call(0, 500)], 1],
  ])("%s", (_name, calls, expected) => {
    expect(countOverlaps(calls, TIMEOUT_MS)).toBe(expected);
  });
});

describe("judgeChaosRun", () => {
  it("passes a clean run", () => {
    const findings = judgeChaosRun(observe());
    expect(findings.violations).toEqual([]);
    expect(findings).toMatchObject({ delivered: 1, lost: 0, unfinished: 0 });
  });

  it.each([
    [
      "a wrong Idempotency-Key",
      observe({ calls: [call(0, 100, { idempotencyKey: "other" })] }),
      Invariant.IDEMPOTENCY_KEY,
    ],
    [
      "overlapping calls",
      observe({
        records: new Map([["e1", record({ attempts: 2 })]]),
        calls: [call(0, 900), call(100, 200)],
      }),
      Invariant.NO_OVERLAP,
    ],
    [
      "more calls than the record's attempts",
      observe({ calls: [call(0, 100), call(2_000, 2_100)] }),
      Invariant.ATTEMPTS_COUNT_CALLS,
    ],
    [
      "a record stuck in flight with no message",
      observe({ records: new Map([["e1", record({ status: "in_flight" })]]) }),
      Invariant.NOTHING_LOST,
    ],
    [
      "a dead-lettered event without its copy",
      observe({
        records: new Map([
          ["e1", record({ status: "dead_lettered", deadLetterReason: "exhausted" })],
        ]),
        calls: [call(0, 100, { reply: Reply.SERVER_ERROR })],
      }),
      Invariant.NOTHING_LOST,
    ],
    [
      "a terminal event with a live message",
      observe({ ingress: [{ body: '{"eventId":"e1"}', schedule: { generation: 0 } }] }),
      Invariant.QUIESCENCE,
    ],
    [
      "delivered although the receiver never said 2xx",
      observe({ calls: [call(0, 100, { reply: Reply.SLOW })] }),
      Invariant.NOTHING_LOST,
    ],
    [
      "a call with a forged payload",
      observe({
        calls: [call(0, 100), call(2_000, 2_100, { fingerprint: "forged", mark: "forged" })],
        records: new Map([["e1", record({ attempts: 2 })]]),
      }),
      Invariant.ONLY_ACCEPTED_ENVELOPE,
    ],
    [
      "a dead-letter copy of a delivered event",
      observe({ deadLetters: [deadLetterCopy("rejected")] }),
      Invariant.NO_DEAD_LETTER_FOR_DELIVERED,
    ],
    [
      "a conflicting resubmission not counted on the record",
      observe({ conflictsSent: new Map([["e1", 1]]) }),
      Invariant.CONFLICTS_COUNTED,
    ],
  ])("flags %s", (_name, observation, invariant) => {
    expect(judgeChaosRun(observation).violations.map((v) => v.invariant)).toContain(invariant);
  });

  it("does not judge leftovers of a run cut short", () => {
    const leftover = { body: '{"eventId":"e1"}', schedule: { generation: 0 } };
    const cut = judgeChaosRun(observe({ ingress: [leftover], expectDrained: false }));
    expect(cut.violations).toEqual([]);
  });

  it("counts a stuck event as lost, but one with a live message as unfinished", () => {
    const stuck = record({ status: "retry_scheduled" });
    const lost = judgeChaosRun(observe({ records: new Map([["e1", stuck]]) }));
    const live = judgeChaosRun(
      observe({
        records: new Map([["e1", stuck]]),
        ingress: [{ body: '{"eventId":"e1"}', schedule: { generation: 1 } }],
      }),
    );
    expect([lost.lost, lost.unfinished]).toEqual([1, 0]);
    expect([live.lost, live.unfinished, live.violations.length]).toEqual([0, 1, 0]);
  });

  it("allows calls beyond the budget only for lease takeovers", () => {
    const calls = [0, 1, 2, 3, 4].map((i) => call(i * 2_000, i * 2_000 + 100));
    // Claims that never recorded a result no longer excuse a call: only a takeover does.
    const records = new Map([["e1", record({ attempts: 5, attemptBudget: 4 })]]);
    const taken = judgeChaosRun(
      observe({ records, calls, traces: tracesOf({ takeovers: new Map([["e1", 1]]) }) }),
    );
    expect([taken.maxAttemptsExceeded, taken.leaseTakeovers]).toEqual([0, 1]);
    expect(judgeChaosRun(observe({ records, calls })).maxAttemptsExceeded).toBe(1);
  });

  it("holds a record's attempts to the calls made plus the runs that never recorded their end (issue #36)", () => {
    const records = new Map([["e1", record({ attempts: 2 })]]);
    const counted = judgeChaosRun(observe({ records }));
    expect(counted.violations.map((v) => v.invariant)).toEqual([Invariant.ATTEMPTS_COUNT_CALLS]);
    const unended = judgeChaosRun(
      observe({ records, traces: tracesOf({ claims: new Map([["e1", 2]]) }) }),
    );
    expect(unended.violations).toEqual([]);
  });

  it("names an event whose message a worker acknowledged while it had no record (issue #36)", () => {
    const traces = tracesOf({ acknowledged: [{ eventId: "e1", recorded: false }] });
    expect(judgeChaosRun(observe({ traces })).violations.map((v) => v.invariant)).toEqual([
      Invariant.RECORDED_FROM_FIRST_SIGHT,
    ]);
  });

  it("does not hold an invalid_envelope copy against a delivered event", () => {
    const copy = deadLetterCopy("invalid_envelope");
    expect(judgeChaosRun(observe({ deadLetters: [copy] })).violations).toEqual([]);
  });
});

describe("the receiver's script", () => {
  it("is a function of the seed, the event and the call index only", () => {
    fc.assert(
      fc.property(fc.integer(), fc.string({ minLength: 1 }), fc.nat(50), (seed, id, index) => {
        expect(replyFor(seed, id, index)).toBe(replyFor(seed, id, index));
      }),
    );
  });

  it("gives clean events only 2xx and refused ones a 400 sooner or later", () => {
    fc.assert(
      fc.property(fc.integer(), fc.string({ minLength: 1 }), (seed, id) => {
        const replies = Array.from({ length: 30 }, (_, i) => replyFor(seed, id, i));
        const temper = temperOf(seed, id);
        if (temper === "clean") expect(new Set(replies)).toEqual(new Set([Reply.OK]));
        if (temper === "refused") expect(replies).toContain(Reply.BAD_REQUEST);
        if (temper === "doomed") expect(replies).not.toContain(Reply.OK);
      }),
    );
  });

  it("refuses every call for an event the run set to refuse at once (the bulky ones)", () => {
    fc.assert(
      fc.property(fc.integer(), fc.string({ minLength: 1 }), fc.nat(50), (seed, id, index) => {
        expect(replyFor(seed, id, index, EventTemper.REFUSED_AT_ONCE)).toBe(Reply.BAD_REQUEST);
      }),
    );
  });
});

describe("judgeChaosRun with forged dead-letter copies (issue #31, finding 6)", () => {
  /** A copy of delivered e1 that the hostile producer forged: another time, 8 attempts. */
  const forged = () => {
    const { summary, body } = fitDeadLetter({
      kind: DEAD_LETTER_KIND,
      version: DEAD_LETTER_VERSION,
      reason: "exhausted",
      eventId: "e1",
      body: JSON.stringify({ eventId: "e1" }, null, 1),
      attempts: 8,
      generation: 0,
      deadLetteredAt: "2025-12-31T00:00:00.000Z",
    });
    return { body, schedule: { generation: 0 }, summary: JSON.stringify(summary) };
  };

  it("leaves a forgery out of the checks of Ricochet's copies, and passes it while unverified", () => {
    const copy = forged();
    const findings = judgeChaosRun(
      observe({ deadLetters: [copy], forgedDeadLetterBodies: new Set([copy.body]) }),
    );
    expect(findings.violations).toEqual([]);
  });

  it("finds a forgery the record bears out, as a routine redrive would move it", () => {
    const copy = forged();
    const bearsOut = record({
      status: "dead_lettered",
      deadLetterReason: "exhausted",
      history: [
        {
          attempt: 8,
          worker: "w",
          claimedAt: "2025-12-31T00:00:00.000Z",
          finishedAt: "2025-12-31T00:00:00.000Z",
          outcome: "retryable",
          message: "503",
        },
      ],
    });
    const findings = judgeChaosRun(
      observe({
        records: new Map([["e1", bearsOut]]),
        deadLetters: [copy],
        forgedDeadLetterBodies: new Set([copy.body]),
      }),
    );
    expect(findings.violations.map((v) => v.invariant)).toContain(
      Invariant.FORGED_COPY_NEVER_MOVED,
    );
  });
});

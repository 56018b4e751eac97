import { createHash } from "node:crypto";
import { parseDeadLetterCopy, readDeadLetter } from "../../lib/app/operator/dead-letter-scan.js";
import { verifyDeadLetterCopy } from "../../lib/core/dead-letter-verification.js";
import { DeadLetterReason } from "../../lib/core/decide.js";
import { parseEnvelope } from "../../lib/core/envelope.js";
import { envelopeDigest } from "../../lib/core/envelope-digest.js";
import type { ReceivedDeadLetter } from "../../lib/core/ports.js";
import { AuditAction, type EventRecord } from "../../lib/core/record.js";
import { EventStatus } from "../../lib/core/status.js";
import { AdversaryMark, markOf } from "./adversarial-producer.js";
import type { LeftMessage } from "./end-state-checks.js";

/*
 * End-of-run checks of guarantees 2, 4, 8 and 9 of DESIGN.md that hostile producers and failed
 * writes put to the test, shared by the simulation and the chaos run (next to the checks of
 * end-state-checks.ts): a dead-letter message means what it says, work stays within the budget,
 * a record's attempt count is the calls made, every event acknowledged has a record, and only
 * the envelope an event was accepted with ever reaches its target.
 */

/** Which guarantee a finding breaks. */
export const GuaranteeProblem = {
  /** A dead-letter message about an event that ends delivered (guarantee 9). */
  DEAD_LETTER_FOR_DELIVERED: "dead_letter_for_delivered",
  /** More target calls than the budget and the forced re-runs allow (guarantee 4). */
  OVER_BUDGET: "over_budget",
  /** The target was called with another payload than the accepted envelope's (guarantee 8). */
  FOREIGN_PAYLOAD_CALLED: "foreign_payload_called",
  /** Conflicting resubmissions that left no count on the record (guarantee 9). */
  SILENT_CONFLICT: "silent_conflict",
  /** A record's attempt count is not the calls made plus the runs a lost lease forced (4, 9). */
  ATTEMPTS_NOT_CALLS: "attempts_not_calls",
  /** A valid event's message was acknowledged while the event had no record (guarantee 2). */
  UNRECORDED_AT_ACK: "unrecorded_at_ack",
  /** A redrive moved a forged dead-letter copy the record did not bear out (guarantee 8). */
  FORGED_COPY_MOVED: "forged_copy_moved",
  /** `dlq clean`'s removal entries on a record are not the copies it removed (guarantee 9). */
  REMOVALS_NOT_AUDITED: "removals_not_audited",
} as const;
export type GuaranteeProblem = (typeof GuaranteeProblem)[keyof typeof GuaranteeProblem];

/** One broken guarantee, about one event. */
export interface GuaranteeFinding {
  readonly problem: GuaranteeProblem;
  readonly eventId: string;
  readonly detail: string;
}

/**
 * Guarantee 9 for copies `ricochet dlq clean` removed (it takes every copy of a delivered event):
 * a copy of a decision made at the generation that was then delivered means the event was both
 * dead-lettered and delivered, which cleaning must not hide. Copies from a generation the event
 * left (redriven or replayed since) and raw bodies parked during a crash loop are what it is for.
 */
export const checkCleanedCopies = (
  records: ReadonlyMap<string, EventRecord>,
  removed: readonly { readonly body: string; readonly summary?: string | undefined }[],
): GuaranteeFinding[] =>
  removed.flatMap((message) => {
    const copy = parseDeadLetterCopy(message.body, message.summary);
    if (!copy.ok || copy.message.reason === DeadLetterReason.INVALID_ENVELOPE) return [];
    const { eventId, reason, generation } = copy.message;
    const record = records.get(String(eventId));
    if (record?.status !== EventStatus.DELIVERED || generation < record.generation) return [];
    return [
      {
        problem: GuaranteeProblem.DEAD_LETTER_FOR_DELIVERED,
        eventId: String(eventId),
        detail: `${eventId}: delivered at generation ${record.generation}, but dlq clean removed a copy that says ${reason} at generation ${generation}`,
      },
    ];
  });

/** SHA-256 of a request body as the target received it. */
export const bodyFingerprint = (body: string): string =>
  createHash("sha256").update(body, "utf8").digest("hex");

/** The fingerprint of the body an HTTP target receives for `payload` (the adapter's JSON). */
export const payloadFingerprint = (payload: unknown): string =>
  bodyFingerprint(JSON.stringify(payload ?? null));

const EVENT_ID_IN_BODY = /"eventId":"([^"\\]+)"/;

/**
 * Guarantee 9, "no dead-letter copy for an event that was delivered": for every event whose
 * record ends `delivered`, no message in the dead-letter queue is about it. A message is about
 * the event when it is
 * - a copy Ricochet wrote naming the event, for any reason but `invalid_envelope`: that reason
 *   is about one message (a forged copy, a malformed resubmission), not about the event, whose
 *   record it never touches; or
 * - a raw body the queue's native redrive parked that is the event's accepted envelope (same
 *   digest as the record's): a raw conflicting resubmission is about its own message too.
 */
export const checkNoDeadLetterForDelivered = (
  records: ReadonlyMap<string, EventRecord>,
  deadLetters: readonly LeftMessage[],
): GuaranteeFinding[] => {
  const delivered = (id: string | undefined): EventRecord | undefined => {
    const record = id === undefined ? undefined : records.get(id);
    return record?.status === EventStatus.DELIVERED ? record : undefined;
  };
  const findings: GuaranteeFinding[] = [];
  for (const message of deadLetters) {
    const copy = parseDeadLetterCopy(message.body, message.summary);
    if (copy.ok) {
      const { reason, eventId } = copy.message;
      if (reason === DeadLetterReason.INVALID_ENVELOPE || delivered(eventId) === undefined)
        continue;
      findings.push({
        problem: GuaranteeProblem.DEAD_LETTER_FOR_DELIVERED,
        eventId: String(eventId),
        detail: `${eventId}: delivered, but a dead-letter copy says ${reason}`,
      });
      continue;
    }
    // Parse only what may matter: a raw body naming a delivered event (bodies may be 1 MiB).
    const record = delivered(EVENT_ID_IN_BODY.exec(message.body)?.[1]);
    if (record === undefined) continue;
    const read = parseEnvelope(message.body);
    if (!read.ok || read.envelope.eventId !== record.eventId) continue;
    if (
      record.envelopeDigest !== undefined &&
      envelopeDigest(read.envelope) !== record.envelopeDigest
    )
      continue;
    findings.push({
      problem: GuaranteeProblem.DEAD_LETTER_FOR_DELIVERED,
      eventId: record.eventId,
      detail: `${record.eventId}: delivered, but its envelope is parked raw in the dead-letter queue (generation ${message.schedule.generation})`,
    });
  }
  return findings;
};

/** One event's work, as a run's trace saw it. */
export interface EventWork {
  readonly eventId: string;
  /** Calls the target received for the event's accepted envelope. */
  readonly calls: number;
  /** Claims the store granted over a record still in flight: a lease that had expired. */
  readonly takeovers: number;
}

/**
 * Guarantee 4, "bounded work": an event's target calls never exceed `record.attemptBudget` (its
 * policy's maxAttempts, or the total a redrive granted: attempts so far plus the extra ones)
 * plus the number of lease takeovers of the event. A takeover is the only re-run the store
 * grants beyond the budget, and exactly the ones a crash or a lease expiry forces: the previous
 * holder may have called the target without recording it. A claim whose result write failed
 * without a takeover after it (the event then moves on by its retry message, or by its source
 * message once the lease expired — a takeover) earns nothing.
 */
export const checkBoundedWork = (
  work: readonly EventWork[],
  records: ReadonlyMap<string, EventRecord>,
): GuaranteeFinding[] =>
  work.flatMap(({ eventId, calls, takeovers }) => {
    const budget = records.get(eventId)?.attemptBudget ?? 0;
    return calls > budget + takeovers
      ? [
          {
            problem: GuaranteeProblem.OVER_BUDGET,
            eventId,
            detail: `${eventId}: ${calls} calls > budget ${budget} + ${takeovers} takeover(s)`,
          },
        ]
      : [];
  });

/** A target call, as the payload check needs it. */
export interface ObservedCall {
  readonly eventId: string;
  /** {@link bodyFingerprint} of the body the target received. */
  readonly fingerprint: string;
  /** The hostile mark its payload carried, if any, for the report. */
  readonly mark?: AdversaryMark | undefined;
}

/**
 * Guarantee 8, "producers cannot speak for Ricochet", seen from the target: every call for an
 * event carries the payload of the envelope the event was first accepted with (`accepted`, by
 * event id: {@link payloadFingerprint}). A forged copy (another target, forged attributes) or a
 * conflicting resubmission (another payload) must never be called. Calls for ids not in
 * `accepted` are left to the identity checks.
 */
export const checkOnlyAcceptedPayloads = (
  calls: readonly ObservedCall[],
  accepted: ReadonlyMap<string, string>,
): GuaranteeFinding[] =>
  calls.flatMap((call) => {
    const expected = accepted.get(call.eventId);
    if (expected === undefined || expected === call.fingerprint) return [];
    return [
      {
        problem: GuaranteeProblem.FOREIGN_PAYLOAD_CALLED,
        eventId: call.eventId,
        detail: `${call.eventId}: target called with a ${call.mark ?? "foreign"} payload`,
      },
    ];
  });

/**
 * Guarantee 9, "no silent drop of a conflicting resubmission": every conflicting resubmission
 * sent for an event (`sent`, by event id) is counted on its record (`record.conflicts.count`,
 * which may count one twice when SQS delivers it twice), or is itself parked raw in the
 * dead-letter queue after crashing its workers `maxReceiveCount` times.
 */
export const checkConflictsCounted = (
  records: ReadonlyMap<string, EventRecord>,
  sent: ReadonlyMap<string, number>,
  deadLetters: readonly LeftMessage[],
): GuaranteeFinding[] => {
  const parked = new Map<string, number>();
  for (const message of deadLetters) {
    // Ricochet's own copies carry a summary; a parked raw message does not.
    const eventId =
      message.summary === undefined ? EVENT_ID_IN_BODY.exec(message.body)?.[1] : undefined;
    if (eventId === undefined || !sent.has(eventId)) continue;
    const read = parseEnvelope(message.body);
    if (read.ok && markOf(read.envelope.payload) === AdversaryMark.CONFLICTING)
      parked.set(eventId, (parked.get(eventId) ?? 0) + 1);
  }
  return [...sent].flatMap(([eventId, count]) => {
    const counted = records.get(eventId)?.conflicts?.count ?? 0;
    const parkedRaw = parked.get(eventId) ?? 0;
    return counted + parkedRaw >= count
      ? []
      : [
          {
            problem: GuaranteeProblem.SILENT_CONFLICT,
            eventId,
            detail: `${eventId}: ${count} conflicting resubmission(s), ${counted} counted on the record, ${parkedRaw} parked`,
          },
        ];
  });
};

/** One event's runs, as a run's trace saw them, for {@link checkAttemptsCountCalls}. */
export interface EventRuns {
  readonly eventId: string;
  /** Calls the target received for the event. */
  readonly calls: number;
  /** Claims the store granted for it (each adds one to `attempts`). */
  readonly claims: number;
  /** Result writes for it that landed (each ends the run of one claim). */
  readonly results: number;
}

/**
 * Guarantees 4 and 9, "a record's attempt count equals the calls made, plus only the re-runs
 * the design allows" (issue #36): every call follows a claim that counted it, so the count is
 * never below the calls; a run that made no call gives its attempt back in its result write, so
 * the count exceeds the calls by at most the runs whose result never landed — a worker that
 * stopped or lost its lease, which may have called unseen (a call the receiver never logged) or
 * not at all, and whose re-run the design allows. A claim counted for a deferral, a deadline or
 * a refused target, and not given back, breaks it.
 */
export const checkAttemptsCountCalls = (
  runs: readonly EventRuns[],
  records: ReadonlyMap<string, EventRecord>,
): GuaranteeFinding[] =>
  runs.flatMap(({ eventId, calls, claims, results }) => {
    const attempts = records.get(eventId)?.attempts;
    if (attempts === undefined) return [];
    const unended = Math.max(0, claims - results);
    if (attempts >= calls && attempts <= calls + unended) return [];
    return [
      {
        problem: GuaranteeProblem.ATTEMPTS_NOT_CALLS,
        eventId,
        detail: `${eventId}: ${attempts} attempt(s) recorded for ${calls} call(s) and ${unended} run(s) that never recorded their end`,
      },
    ];
  });

/** A message the orchestrator acknowledged, and whether its event had a record at that moment. */
export interface AcknowledgedMessage {
  readonly eventId: string;
  readonly recorded: boolean;
}

/**
 * Guarantee 2, "its record stays queryable throughout", from the event's first sight: once the
 * orchestrator acknowledges a valid event's message (it was attempted, scheduled, deferred, or
 * dropped as a duplicate), the event has a record. A deferral that re-sent the message without
 * one left the event invisible to status, the console and cancel (issue #36, finding 4).
 */
export const checkRecordedFromFirstSight = (
  acknowledged: readonly AcknowledgedMessage[],
): GuaranteeFinding[] => {
  const unrecorded = new Map<string, number>();
  for (const { eventId, recorded } of acknowledged)
    if (!recorded) unrecorded.set(eventId, (unrecorded.get(eventId) ?? 0) + 1);
  return [...unrecorded].map(([eventId, count]) => ({
    problem: GuaranteeProblem.UNRECORDED_AT_ACK,
    eventId,
    detail: `${eventId}: ${count} message(s) acknowledged while the event had no record`,
  }));
};

/** A message a redrive sent back to the internal queue, as the checks need it. */
export interface RedrivenMessage {
  readonly body: string;
}

/**
 * Guarantee 8 for the dead-letter queue (issue #31, finding 6): a redrive, routine or by id, never
 * moves a forged copy (`forged`: the bodies the hostile producer sent there). Each forgery carries
 * the event's accepted envelope, re-serialised, under a summary the record does not hold, so
 * only the record's word tells it from Ricochet's own copy; a move of one re-sends its bytes.
 */
export const checkNoForgedCopyMoved = (
  redriven: readonly RedrivenMessage[],
  forged: ReadonlySet<string>,
): GuaranteeFinding[] =>
  redriven.flatMap(({ body }) => {
    if (!forged.has(body)) return [];
    const read = parseEnvelope(body);
    const eventId = read.ok ? read.envelope.eventId : "?";
    return [
      {
        problem: GuaranteeProblem.FORGED_COPY_MOVED,
        eventId,
        detail: `${eventId}: a redrive moved a forged dead-letter copy the record does not bear out`,
      },
    ];
  });

/**
 * Guarantee 8 for the forged copies still in the dead-letter queue at the end (`forged`: their
 * bodies): checked against the event's record as a routine redrive checks them, every one is
 * unverified, so that such a redrive leaves it. Where the run has no redrive of its own (the
 * chaos run), this is what stands between a forgery and a move.
 */
export const checkForgedCopiesUnverified = (
  records: ReadonlyMap<string, EventRecord>,
  deadLetters: readonly LeftMessage[],
  forged: ReadonlySet<string>,
): GuaranteeFinding[] =>
  deadLetters.flatMap((message) => {
    if (!forged.has(message.body)) return [];
    const copy = parseDeadLetterCopy(message.body, message.summary);
    if (!copy.ok) return [];
    const eventId = String(copy.message.eventId);
    if (!verifyDeadLetterCopy(copy.message, records.get(eventId)).verified) return [];
    return [
      {
        problem: GuaranteeProblem.FORGED_COPY_MOVED,
        eventId,
        detail: `${eventId}: a forged dead-letter copy verifies against the record (a routine redrive would move it)`,
      },
    ];
  });

/** A dead-letter copy a `dlq clean` run really removed from the queue. */
export interface CleanRemoval {
  readonly messageId: string;
  readonly eventId: string;
}

/** The removals of `copies` (as received) that name an event, for {@link checkCleanRemovalsAudited}. */
export const cleanRemovalsOf = (copies: readonly ReceivedDeadLetter[]): CleanRemoval[] =>
  copies.flatMap((copy) => {
    const read = readDeadLetter(copy);
    const eventId = read.ok ? read.message.eventId : undefined;
    return eventId === undefined ? [] : [{ eventId, messageId: copy.messageId }];
  });

/**
 * Guarantee 9 for `ricochet dlq clean` (issue #31, finding 8): on every record, the
 * `dead_letter_copy_removed` entries naming a message are the removals of that message that
 * happened (`removals`, counted by message id: one event may rightly have several copies, a
 * native move beside Ricochet's own). Never more — an entry for a delete that failed, or that
 * SQS accepted with an outdated receipt handle and ignored — and fewer only for a copy in
 * `excused`: one the run reported failed (its entry could not be written) or a run that died
 * between the delete and the entry, as its operator saw.
 */
export const checkCleanRemovalsAudited = (
  records: ReadonlyMap<string, EventRecord>,
  removals: readonly CleanRemoval[],
  excused: ReadonlySet<string>,
): GuaranteeFinding[] => {
  const key = (eventId: string, messageId: string) => `${eventId}\u0000${messageId}`;
  const removed = new Map<string, number>();
  for (const { eventId, messageId } of removals)
    removed.set(key(eventId, messageId), (removed.get(key(eventId, messageId)) ?? 0) + 1);
  const audited = new Map<string, number>();
  for (const record of records.values())
    for (const entry of record.audit ?? [])
      if (entry.action === AuditAction.DEAD_LETTER_COPY_REMOVED && entry.messageId !== undefined) {
        const k = key(record.eventId, entry.messageId);
        audited.set(k, (audited.get(k) ?? 0) + 1);
      }
  return [...new Set([...removed.keys(), ...audited.keys()])].flatMap((k) => {
    const [eventId = "?", messageId = "?"] = k.split("\u0000");
    const entries = audited.get(k) ?? 0;
    const real = removed.get(k) ?? 0;
    if (entries === real || (entries < real && excused.has(messageId))) return [];
    return [
      {
        problem: GuaranteeProblem.REMOVALS_NOT_AUDITED,
        eventId,
        detail: `${eventId}: ${entries} removal entr${entries === 1 ? "y" : "ies"} for message ${messageId}, removed ${real} time(s)`,
      },
    ];
  });
};

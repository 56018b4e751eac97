import type { DeadLetterSummary } from "./dead-letter.js";
import { DeadLetterReason } from "./decide.js";
import type { AttemptEntry, EventRecord } from "./record.js";
import { EventStatus } from "./status.js";

/*
 * Whether a dead-letter copy's summary is Ricochet's own word, checked against the event's
 * record. The summary travels as a message attribute anyone with SendMessage on the queue could
 * write; the record is written only by Ricochet's roles. A copy whose summary the record does not
 * bear out (no such event, another generation, another reason, attempt count or time) is
 * unverified: shown as such, and never redriven unless the operator says so explicitly.
 */

/** A copy's standing against the record: verified, or why not (one sentence for an operator). */
export type CopyVerification =
  | { readonly verified: true }
  | { readonly verified: false; readonly why: string };

const VERIFIED: CopyVerification = { verified: true };
const unverified = (why: string): CopyVerification => ({ verified: false, why });

/** Whether `entry` is the attempt the copy says decided its dead-lettering, at the copy's time. */
const decides = (entry: AttemptEntry | undefined, copy: DeadLetterSummary): boolean =>
  entry !== undefined &&
  entry.attempt === copy.attempts &&
  entry.finishedAt === copy.deadLetteredAt;

/** The record still holds the attempt that decided this dead-lettering. */
const holdsDecidingAttempt = (record: EventRecord, copy: DeadLetterSummary): boolean =>
  record.history.some((entry) => decides(entry, copy));

/**
 * The record says, at the copy's generation, that the event ended for the copy's reason with the
 * copy's attempt as its last. Not its attempt count: a takeover that finishes a decision whose
 * result write was lost counts its own claim, and the copies still name the deciding attempt.
 */
const endsForReason = (record: EventRecord, copy: DeadLetterSummary): boolean =>
  (record.status === EventStatus.DEAD_LETTERED || record.status === EventStatus.REJECTED) &&
  record.deadLetterReason === copy.reason &&
  decides(record.history.at(-1), copy);

/** A dead-letter decision noted but not yet recorded as the end (the copy may already be out). */
const pendsForReason = (record: EventRecord, copy: DeadLetterSummary): boolean => {
  const pending = record.pendingDeadLetter;
  return (
    pending !== undefined &&
    pending.reason === copy.reason &&
    pending.generation === copy.generation &&
    pending.attempts === copy.attempts &&
    pending.decidedAt === copy.deadLetteredAt
  );
};

/** A copy the orchestrator sent after attempts (exhausted, deadline, rejected). */
const verifyAttemptedCopy = (record: EventRecord, copy: DeadLetterSummary): CopyVerification => {
  if (record.generation === copy.generation && pendsForReason(record, copy)) return VERIFIED;
  if (!holdsDecidingAttempt(record, copy)) {
    return unverified(
      `the record holds no attempt ${copy.attempts} finished at ${copy.deadLetteredAt}`,
    );
  }
  // A later generation means the event was redriven since: the deciding attempt is evidence enough.
  if (record.generation > copy.generation || endsForReason(record, copy)) return VERIFIED;
  return unverified(
    `the record shows ${record.status}` +
      (record.deadLetterReason === undefined ? "" : ` (${record.deadLetterReason})`) +
      ` after attempt ${record.history.at(-1)?.attempt ?? record.attempts}, not ${copy.reason} after ${copy.attempts}`,
  );
};

/**
 * Checks a dead-letter copy's summary against the event's record (undefined: none was found).
 * Pure; the caller reads the record.
 */
export const verifyDeadLetterCopy = (
  copy: DeadLetterSummary,
  record: EventRecord | undefined,
): CopyVerification => {
  if (copy.eventId === undefined)
    return unverified("it names no event, so no record vouches for it");
  if (record === undefined || record.eventId !== copy.eventId) {
    return unverified(
      `Ricochet has no record of event ${copy.eventId} (expired, or never accepted)`,
    );
  }
  // An invalid body was never attempted, and its generation is whatever its message claimed:
  // the record's existence is the only check there is (such a copy is never redriven anyway).
  if (copy.reason === DeadLetterReason.INVALID_ENVELOPE) return VERIFIED;
  if (copy.generation > record.generation) {
    return unverified(
      `it claims generation ${copy.generation}; the record is at ${record.generation}`,
    );
  }
  // A native move has no summary: it says only what the queue saw, which the record cannot check.
  if (copy.reason === DeadLetterReason.UNPROCESSED) return VERIFIED;
  return verifyAttemptedCopy(record, copy);
};

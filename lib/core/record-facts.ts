import { describeDeferral } from "./deferral.js";
import { shortDigest } from "./envelope-digest.js";
import type { EventRecord } from "./record.js";
import { redactCredentials } from "./redact.js";
import { EventStatus } from "./status.js";
import { formatSeconds } from "./time-format.js";

/*
 * One event's record as a person is told it, fact by fact: `ricochet status` draws these rows in
 * a terminal and the console's event page in HTML, so the two cannot say different things
 * (issue #36: the page left out what the command showed). Renderers make the values inert.
 */

/** One line of a record's summary: its label and what it says (several lines for a list). */
export interface RecordFact {
  readonly name: string;
  readonly value: string | number | readonly string[];
}

/**
 * The status as a person asks about it: a scheduled event says when it is due and how far off
 * that is (`scheduled, due 2030-01-01T06:00:00.000Z (in 2h 30m)`); a due time already passed
 * means a hop is on its way to the event's first attempt.
 */
export const describeStatus = (record: EventRecord, nowMs: number): string => {
  const dueMs = record.nextAttemptAt === undefined ? Number.NaN : Date.parse(record.nextAttemptAt);
  if (record.status !== EventStatus.SCHEDULED || Number.isNaN(dueMs)) return record.status;
  const seconds = (dueMs - nowMs) / 1000;
  const distance =
    seconds >= 1
      ? `in ${formatSeconds(seconds)}`
      : seconds > -1
        ? "now"
        : `${formatSeconds(-seconds)} ago`;
  return `${record.status}, due ${record.nextAttemptAt} (${distance})`;
};

type Candidate = readonly [string, RecordFact["value"] | undefined];

/**
 * The record's summary at `nowMs`, in the order it is shown; facts that do not apply (no
 * deferral, no conflict, …) are left out. Free text is redacted again, so a record written
 * before a redaction rule existed still shows no credential.
 */
export const recordFacts = (record: EventRecord, nowMs: number): RecordFact[] => {
  const { conflicts, pendingDeadLetter, policyAdjustments } = record;
  const candidates: Candidate[] = [
    ["event", record.eventId],
    ["status", describeStatus(record, nowMs)],
    ["attempts", `${record.attempts} of ${record.attemptBudget}`],
    ["generation", record.generation],
    ["target", record.targetSummary],
    ["next attempt", record.nextAttemptAt],
    // Said only while it lasts: the target turned the waiting event away.
    ["deferred", record.deferral && describeDeferral(record.deferral)],
    ["last outcome", record.lastOutcome && redactCredentials(record.lastOutcome.message)],
    ["dead-letter reason", record.deadLetterReason],
    // Said only while it lasts: the attempt that decided it stopped before recording the end,
    // and the next takeover finishes it (the copy may already be in the dead-letter queue).
    [
      "dead-letter pending",
      pendingDeadLetter && `${pendingDeadLetter.reason}, decided ${pendingDeadLetter.decidedAt}`,
    ],
    ["envelope", record.envelopeDigest && shortDigest(record.envelopeDigest)],
    // Someone sent another envelope under this id; the first one is what is delivered.
    [
      "conflicting resubmissions",
      conflicts &&
        `${conflicts.count} (last ${conflicts.lastAt}, envelope ${shortDigest(conflicts.lastDigest)})`,
    ],
    // An operator sent the delivered event again (`ricochet replay`).
    ["replays", record.replays],
    // The producer asked for more than the deployment allows: one line per adjustment.
    ["policy clamped", policyAdjustments?.length ? policyAdjustments : undefined],
    ["created", record.createdAt],
    ["updated", record.updatedAt],
  ];
  return candidates.flatMap(([name, value]) =>
    value === undefined || value === "" ? [] : [{ name, value }],
  );
};

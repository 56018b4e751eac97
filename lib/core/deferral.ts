import { firstSightRecord, sameEnvelope } from "./claim.js";
import type { RecordDeferralRequest } from "./ports.js";
import type { EventRecord } from "./record.js";
import { EventStatus } from "./status.js";
import { isoOf } from "./time-format.js";

/*
 * The rules of a deferral's record, in one place. A target's breaker or limits may turn an event
 * away before its claim; the event goes back to the queue, and its record says so: it exists from
 * the event's first sight (pending, no attempt), and says why it waits and until when. The
 * DynamoDB store states `mayRecordDeferral` as a condition expression (change both together; a
 * property test holds them equal: test/adapters/dynamo-event-store/conditions.rules.integration.test.ts);
 * the simulation's memory store calls these functions.
 */

/** Why a target turned an event away before its attempt. */
export const DeferralCause = {
  BREAKER_OPEN: "breaker_open",
  CONCURRENCY_LIMIT: "concurrency_limit",
  RATE_LIMIT: "rate_limit",
} as const;
export type DeferralCause = (typeof DeferralCause)[keyof typeof DeferralCause];

/**
 * What a waiting event's record says of its last deferral; when it is tried next is the record's
 * `nextAttemptAt`. Cleared by the claim that attempts it, and by a cancel or a redrive.
 */
export interface DeferralNote {
  readonly cause: DeferralCause;
  /** The target's key (its breaker's and limits'). */
  readonly targetKey: string;
  /** When the event was last turned away. */
  readonly at: string;
}

const CAUSE_TEXT: Readonly<Record<DeferralCause, string>> = {
  breaker_open: "its target's circuit breaker is open",
  concurrency_limit: "its target is at its concurrency limit",
  rate_limit: "its target is at its rate limit",
};

/** Why the event waits, as a clause: "its target's circuit breaker is open". */
export const deferralReason = (cause: DeferralCause): string => CAUSE_TEXT[cause];

/** The deferral for people: "circuit breaker open for target …, deferred at …". */
export const describeDeferral = (note: DeferralNote): string => {
  const what =
    note.cause === DeferralCause.BREAKER_OPEN
      ? "circuit breaker open"
      : note.cause === DeferralCause.RATE_LIMIT
        ? "at its rate limit"
        : "at its concurrency limit";
  return `${what} for target ${note.targetKey} (deferred ${note.at})`;
};

/** Statuses whose record a deferral updates: the event waits for this very message. */
const WAITING: ReadonlySet<EventStatus> = new Set<EventStatus>([
  EventStatus.PENDING,
  EventStatus.SCHEDULED,
  EventStatus.RETRY_SCHEDULED,
]);

/**
 * Whether a deferral's write lands: no record yet (the event's first sight), or the same envelope
 * waiting at the message's generation. Anything else (an attempt in flight, a finished or
 * cancelled event, another generation, another envelope, an invalid envelope's placeholder) is
 * left alone: the deferred message's claim judges it later, as it would have without a deferral.
 */
export const mayRecordDeferral = (
  old: EventRecord | undefined,
  request: Pick<RecordDeferralRequest, "generation" | "envelopeDigest">,
): boolean =>
  old === undefined ||
  (sameEnvelope(old, request.envelopeDigest) &&
    old.generation === request.generation &&
    WAITING.has(old.status));

/** The record as a deferral leaves it: as it was (or new and pending), due at `dueMs`, noted. */
export const deferredRecord = (
  old: EventRecord | undefined,
  request: RecordDeferralRequest,
): EventRecord => ({
  ...(old ?? { ...firstSightRecord(request), status: EventStatus.PENDING }),
  nextAttemptAt: isoOf(request.dueMs),
  deferral: { cause: request.cause, targetKey: request.targetKey, at: isoOf(request.nowMs) },
  updatedAt: isoOf(request.nowMs),
});

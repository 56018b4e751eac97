import { DeadLetterReason } from "../../core/decide.js";
import type {
  CancelRecordRequest,
  ClaimRequest,
  RecordDeferralRequest,
  RecordScheduledRequest,
  RedriveRecordRequest,
  ReplayRecordRequest,
} from "../../core/ports.js";
import { EventStatus } from "../../core/status.js";
import type { ExpressionPart } from "./expression-part.js";

/*
 * The condition of every write the event store makes, one per operation, built from named parts.
 * Each mirrors a pure rule of lib/core (named below) that the in-memory store of the simulation
 * (test/simulation/memory-event-store.ts) transcribes too.
 */

/** `status` is a reserved word in DynamoDB expressions. */
export const STATUS_NAME: Readonly<Record<string, string>> = { "#status": "status" };

/** No record with this event id yet. */
export const RECORD_ABSENT = "attribute_not_exists(eventId)";

/** A record exists: a record that is gone (TTL) is left alone. */
export const RECORD_PRESENT: ExpressionPart = {
  expression: "attribute_exists(eventId)",
  values: {},
};

/** Waiting for an attempt: pending, due for a retry, or scheduled. */
const WAITING = "#status IN (:pending, :retryScheduled, :scheduled)";
const WAITING_VALUES = {
  ":pending": EventStatus.PENDING,
  ":retryScheduled": EventStatus.RETRY_SCHEDULED,
  ":scheduled": EventStatus.SCHEDULED,
};

/**
 * In flight, but its holder's lease ran out (the holder died): another may take it over. A record
 * in flight with no lease at all reads as expired, as the pure rules read it (`?? 0`): otherwise
 * it could never be claimed or redriven again (found by the claim-rule property test).
 */
const LEASE_EXPIRED =
  "(#status = :inFlight AND (attribute_not_exists(leaseExpiresAt) OR leaseExpiresAt < :nowMs))";
const leaseExpiredValues = (nowMs: number) => ({
  ":inFlight": EventStatus.IN_FLIGHT,
  ":nowMs": nowMs,
});

/** The envelope this record was created from, or a record that never saw one (a placeholder). */
const SAME_ENVELOPE = "(attribute_not_exists(envelopeDigest) OR envelopeDigest = :digest)";

/**
 * The placeholder an invalid envelope leaves (lib/adapters/dynamo-event-store/intake-writes.ts):
 * no attempt made (`isInvalidPlaceholder`, which reads a missing count as 0). One written by an
 * older release stored attemptBudget 0 and stays unclaimable (it would keep that budget); the
 * pure rule cannot see the difference, this condition can: the one place they differ on purpose
 * (test/adapters/dynamo-event-store/conditions.rules.integration.test.ts).
 */
const INVALID_PLACEHOLDER =
  "(#status = :rejected AND deadLetterReason = :invalidEnvelope AND " +
  "(attribute_not_exists(attempts) OR attempts = :zero) AND attribute_not_exists(attemptBudget))";

/**
 * A claim at `generation` (lib/core/claim.ts, mayClaim): a new event, or one of the same envelope
 * that waits at this generation, whose lease expired, or an invalid envelope's placeholder; or an
 * attempt of the previous generation whose lease expired.
 */
export const claimCondition = (request: ClaimRequest): ExpressionPart => ({
  expression:
    `${RECORD_ABSENT} OR (${SAME_ENVELOPE} AND (` +
    `(generation = :generation AND (${WAITING} OR ${LEASE_EXPIRED} OR ${INVALID_PLACEHOLDER})) OR ` +
    `(generation = :previous AND ${LEASE_EXPIRED})))`,
  names: STATUS_NAME,
  values: {
    ...WAITING_VALUES,
    ...leaseExpiredValues(request.nowMs),
    ":rejected": EventStatus.REJECTED,
    ":invalidEnvelope": DeadLetterReason.INVALID_ENVELOPE,
    ":zero": 0,
    ":digest": request.envelopeDigest,
    ":generation": request.generation,
    ":previous": request.generation - 1,
  },
});

/** A write by the attempt holding the lease: still in flight at the claimed generation, ours. */
export const holdingTheLease = ({
  worker,
  generation,
}: {
  readonly worker: string;
  readonly generation: number;
}): ExpressionPart => ({
  expression: "#status = :inFlight AND leaseOwner = :worker AND generation = :generation",
  names: STATUS_NAME,
  values: { ":inFlight": EventStatus.IN_FLIGHT, ":worker": worker, ":generation": generation },
});

/** A new event, or the same schedule of the same envelope written again (a redelivery). */
export const scheduleCondition = (request: RecordScheduledRequest): ExpressionPart => ({
  expression: `${RECORD_ABSENT} OR (#status = :scheduled AND generation = :zero AND envelopeDigest = :digest)`,
  names: STATUS_NAME,
  values: { ":scheduled": EventStatus.SCHEDULED, ":zero": 0, ":digest": request.envelopeDigest },
});

/**
 * A deferral (lib/core/deferral.ts, mayRecordDeferral): the event's first sight, or the same
 * envelope waiting at the message's generation.
 */
export const deferralCondition = (request: RecordDeferralRequest): ExpressionPart => ({
  expression: `${RECORD_ABSENT} OR (${SAME_ENVELOPE} AND generation = :generation AND ${WAITING})`,
  names: STATUS_NAME,
  values: {
    ...WAITING_VALUES,
    ":digest": request.envelopeDigest,
    ":generation": request.generation,
  },
});

/**
 * A redrive to `generation` (lib/core/redrive-rule.ts, mayRedrive): the previous generation ended
 * (dead-lettered, rejected), still waits, or died with its lease; or the record is gone.
 */
export const redriveCondition = (request: RedriveRecordRequest): ExpressionPart => ({
  expression:
    `${RECORD_ABSENT} OR (generation = :previous AND ` +
    `(#status IN (:deadLettered, :rejected) OR ${WAITING} OR ${LEASE_EXPIRED}))`,
  names: STATUS_NAME,
  values: {
    ":deadLettered": EventStatus.DEAD_LETTERED,
    ":rejected": EventStatus.REJECTED,
    ...WAITING_VALUES,
    ...leaseExpiredValues(request.nowMs),
    ":previous": request.generation - 1,
  },
});

/**
 * A cancel (lib/core/cancel-rule.ts, mayRecordCancel): the record is still as the cancel read it
 * and no dead-letter decision is pending on it.
 */
export const cancelCondition = (request: CancelRecordRequest): ExpressionPart => ({
  expression:
    "#status = :expected AND generation = :generation AND attribute_not_exists(pendingDeadLetter)",
  names: STATUS_NAME,
  values: { ":expected": request.expectedStatus, ":generation": request.generation },
});

/** A replay (lib/core/replay-rule.ts, mayRecordReplay): delivered at the previous generation. */
export const replayCondition = (request: ReplayRecordRequest): ExpressionPart => ({
  expression: "#status = :delivered AND generation = :previous",
  names: STATUS_NAME,
  values: { ":delivered": EventStatus.DELIVERED, ":previous": request.generation - 1 },
});

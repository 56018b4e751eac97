import { DeadLetterReason } from "./decide.js";
import type { ClaimRequest, ClaimResult, FirstSight } from "./ports.js";
import type { EventRecord } from "./record.js";
import { EventStatus, isTerminal } from "./status.js";
import { isoOf } from "./time-format.js";

/*
 * The rules of a claim, in one place. The DynamoDB store states `mayClaim` as a condition
 * expression (change both together: a property test on DynamoDB Local holds the two equal,
 * test/adapters/dynamo-event-store/conditions.rules.integration.test.ts); the simulation's
 * memory store calls these functions, so the simulation proves things about the rules the real
 * store applies.
 */

/**
 * Whether a record is only the placeholder an invalid envelope left under its id: it holds the
 * id for no event, so a corrected resubmission may claim it (keeping its history).
 */
export const isInvalidPlaceholder = (record: EventRecord): boolean =>
  record.status === EventStatus.REJECTED &&
  record.deadLetterReason === DeadLetterReason.INVALID_ENVELOPE &&
  record.attempts === 0;

const leaseExpired = (record: EventRecord, nowMs: number): boolean =>
  record.status === EventStatus.IN_FLIGHT && (record.leaseExpiresAt ?? 0) < nowMs;

/** Whether the message's envelope is the one the record was accepted with (or none is known). */
export const sameEnvelope = (record: EventRecord, digest: string): boolean =>
  record.envelopeDigest === undefined || record.envelopeDigest === digest;

/**
 * Whether a claim for `generation` is admitted: no record yet; or the same envelope and either
 * - the message's generation with the event waiting (pending, scheduled or a retry), or with the previous holder's lease expired;
 * - the message's generation over an invalid envelope's placeholder (a corrected resubmission);
 * - the NEXT generation over an attempt whose holder's lease expired: that holder issued this
 *   message (only Ricochet's roles can issue generations above 0) and then died or failed to
 *   record it, so the message it left carries the event on without waiting for the source
 *   message's visibility timeout.
 */
export const mayClaim = (
  old: EventRecord | undefined,
  generation: number,
  nowMs: number,
  digest: string,
): boolean =>
  old === undefined ||
  (sameEnvelope(old, digest) &&
    ((old.generation === generation &&
      (old.status === EventStatus.PENDING ||
        old.status === EventStatus.RETRY_SCHEDULED ||
        old.status === EventStatus.SCHEDULED ||
        leaseExpired(old, nowMs) ||
        isInvalidPlaceholder(old))) ||
      (old.generation === generation - 1 && leaseExpired(old, nowMs))));

/**
 * The record the first write of an event creates, before that write's own changes: pending at the
 * message's generation, no attempt made, with what the envelope says of itself. A claim and a
 * deferral may each be that write (lib/adapters/dynamo-event-store/first-sight-fields.ts).
 */
export const firstSightRecord = (request: FirstSight): EventRecord => ({
  eventId: request.eventId,
  status: EventStatus.PENDING,
  generation: request.generation,
  attempts: 0,
  attemptBudget: request.attemptBudget,
  history: [],
  redrives: [],
  createdAt: isoOf(request.nowMs),
  updatedAt: isoOf(request.nowMs),
  targetSummary: request.targetSummary,
  envelopeDigest: request.envelopeDigest,
  ...(request.targetGroup === undefined ? {} : { targetGroup: request.targetGroup }),
  ...(request.policyAdjustments?.length ? { policyAdjustments: request.policyAdjustments } : {}),
});

/** The record as an admitted claim leaves it: in flight, leased, one more attempt. */
export const claimedRecord = (old: EventRecord | undefined, request: ClaimRequest): EventRecord => {
  const { generation, worker, nowMs } = request;
  const attempts = (old?.attempts ?? 0) + 1;
  const fresh = firstSightRecord(request);
  // An invalid envelope's placeholder gives way to the corrected event but keeps its history.
  const base =
    old === undefined
      ? fresh
      : isInvalidPlaceholder(old)
        ? { ...fresh, history: old.history, redrives: old.redrives, audit: old.audit }
        : old;
  return {
    ...base,
    generation,
    envelopeDigest: old?.envelopeDigest ?? request.envelopeDigest,
    deadLetterReason: undefined,
    deferral: undefined,
    expiresAt: undefined,
    status: EventStatus.IN_FLIGHT,
    attempts,
    leaseOwner: worker,
    leaseExpiresAt: nowMs + request.leaseMs,
    currentAttempt: { attempt: attempts, worker, claimedAt: isoOf(nowMs) },
    nextAttemptAt: undefined,
    updatedAt: isoOf(nowMs),
  };
};

/** Why a claim was refused, read from the record that refused it. */
export const explainRefusedClaim = (
  old: EventRecord,
  generation: number,
  nowMs: number,
  digest: string,
): Exclude<ClaimResult, { kind: "claimed" }> => {
  if (!sameEnvelope(old, digest)) return { kind: "conflict", record: old };
  if (isTerminal(old.status) && generation <= old.generation)
    return { kind: "finished", record: old };
  if (generation < old.generation) return { kind: "stale", record: old };
  if (generation > old.generation) return { kind: "ahead", record: old };
  // Same generation and in flight: someone holds the lease (the condition saw it live).
  return { kind: "lease_held", leaseExpiresAt: Math.max(old.leaseExpiresAt ?? nowMs, nowMs) };
};

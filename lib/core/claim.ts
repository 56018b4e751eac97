import type { ClaimRequest, ClaimResult } from "./ports.js";
import type { EventRecord } from "./record.js";
import { EventStatus, isTerminal } from "./status.js";

/*
 * The rules of a claim, in one place. The DynamoDB store states `mayClaim` as a condition
 * expression (change both together); the simulation's memory store calls these functions, so
 * the simulation proves things about the rules the real store applies.
 */

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Whether a claim for `generation` is admitted: no record yet; or the message's generation with
 * the event waiting; or the message's generation with the previous holder's lease expired.
 */
export const mayClaim = (
  old: EventRecord | undefined,
  generation: number,
  nowMs: number,
): boolean =>
  old === undefined ||
  (old.generation === generation &&
    (old.status === EventStatus.PENDING ||
      old.status === EventStatus.RETRY_SCHEDULED ||
      (old.status === EventStatus.IN_FLIGHT && (old.leaseExpiresAt ?? 0) < nowMs)));

/** The record as an admitted claim leaves it: in flight, leased, one more attempt. */
export const claimedRecord = (old: EventRecord | undefined, request: ClaimRequest): EventRecord => {
  const { eventId, generation, worker, nowMs } = request;
  const attempts = (old?.attempts ?? 0) + 1;
  return {
    ...(old ?? {
      eventId,
      generation,
      attempts: 0,
      attemptBudget: request.attemptBudget,
      history: [],
      redrives: [],
      createdAt: iso(nowMs),
      targetSummary: request.targetSummary,
      ...(request.policyAdjustments?.length
        ? { policyAdjustments: request.policyAdjustments }
        : {}),
    }),
    status: EventStatus.IN_FLIGHT,
    attempts,
    leaseOwner: worker,
    leaseExpiresAt: nowMs + request.leaseMs,
    currentAttempt: { attempt: attempts, worker, claimedAt: iso(nowMs) },
    nextAttemptAt: undefined,
    updatedAt: iso(nowMs),
  };
};

/** Why a claim was refused, read from the record that refused it. */
export const explainRefusedClaim = (
  old: EventRecord,
  generation: number,
  nowMs: number,
): Exclude<ClaimResult, { kind: "claimed" }> => {
  if (isTerminal(old.status) && generation <= old.generation)
    return { kind: "finished", record: old };
  if (generation < old.generation) return { kind: "stale", record: old };
  if (generation > old.generation) return { kind: "ahead", record: old };
  // Same generation and in flight: someone holds the lease (the condition saw it live).
  return { kind: "lease_held", leaseExpiresAt: Math.max(old.leaseExpiresAt ?? nowMs, nowMs) };
};

import { sameEnvelope } from "./claim.js";
import { effectiveDeadlineMs } from "./decide.js";
import type { Envelope } from "./envelope.js";
import { envelopeDigest, shortDigest } from "./envelope-digest.js";
import type { RetryPolicy } from "./policy.js";
import type { ReplayRecordRequest } from "./ports.js";
import type { EventRecord } from "./record.js";
import { EventStatus } from "./status.js";

/*
 * The rules of a replay: a delivered event sent again, as a new generation with a fresh budget.
 * The record keeps only the envelope's digest (an envelope may be 1 MiB, over DynamoDB's 400 KB
 * item limit, and a payload kept for every delivered event would widen where producers' data
 * lives), so the operator supplies the envelope and it must be the one the event was accepted
 * with. The DynamoDB store states `mayRecordReplay` as a condition (change both together).
 */

/** What a replay may do with an event, judged from its record and the envelope offered. */
export type ReplayVerdict =
  | { readonly kind: "replay"; readonly record: EventRecord }
  | { readonly kind: "refuse"; readonly reason: string };

const refuse = (reason: string): ReplayVerdict => ({ kind: "refuse", reason });

/**
 * Whether `envelope` may be replayed over `record` at `nowMs`: the event was delivered, the
 * envelope is the accepted one, and its deadline (which a replay does not move) has not passed:
 * a producer's "never after" holds for replays too.
 */
export const judgeReplay = (
  record: EventRecord | undefined,
  envelope: Envelope,
  policy: RetryPolicy,
  nowMs: number,
): ReplayVerdict => {
  if (record === undefined) return refuse("no record: unknown event, or its record has expired");
  const digest = envelopeDigest(envelope);
  if (!sameEnvelope(record, digest))
    return refuse(
      `not the envelope the event was accepted with (accepted ${shortDigest(record.envelopeDigest ?? "")}, given ${shortDigest(digest)})`,
    );
  if (record.status !== EventStatus.DELIVERED) {
    const hint =
      record.status === EventStatus.DEAD_LETTERED || record.status === EventStatus.REJECTED
        ? "; `ricochet redrive` sends it again"
        : "";
    return refuse(`only a delivered event is replayed; this one is ${record.status}${hint}`);
  }
  const deadlineMs = effectiveDeadlineMs(envelope.deadline, policy, Date.parse(record.createdAt));
  if (deadlineMs !== undefined && nowMs > deadlineMs)
    return refuse(`its deadline passed at ${new Date(deadlineMs).toISOString()}`);
  return { kind: "replay", record };
};

/** Whether the replay write lands: the record is still delivered, one generation below. */
export const mayRecordReplay = (
  old: EventRecord | undefined,
  generation: number,
): old is EventRecord =>
  old !== undefined && old.status === EventStatus.DELIVERED && old.generation === generation - 1;

/** The record as a replay leaves it: pending at the new generation, budget and count raised. */
export const replayedRecord = (old: EventRecord, request: ReplayRecordRequest): EventRecord => ({
  ...old,
  status: EventStatus.PENDING,
  generation: request.generation,
  attemptBudget: request.attemptBudget,
  replays: (old.replays ?? 0) + 1,
  updatedAt: new Date(request.nowMs).toISOString(),
  audit: [...(old.audit ?? []), request.audit],
  expiresAt: undefined,
  nextAttemptAt: undefined,
});

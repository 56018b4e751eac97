import { MetricName } from "../../contract/metric-names.js";
import { sameEnvelope } from "../../core/claim.js";
import { effectiveDeadlineMs } from "../../core/decide.js";
import { type DeferralCause, deferralReason } from "../../core/deferral.js";
import { envelopeDigest } from "../../core/envelope-digest.js";
import { describeTarget } from "../../core/redact.js";
import { EventStatus } from "../../core/status.js";
import { dropCancelled, refuseConflict } from "./event-refusals.js";
import { resendFor } from "./hop.js";
import type { MessageInHand } from "./message-in-hand.js";
import { ACK, type MessageVerdict, type OrchestratorContext } from "./orchestrator-context.js";

/** Why and until when the event's target (its key is the message's) turns the event away. */
export interface Deferral {
  readonly untilMs: number;
  readonly cause: DeferralCause;
  /** When the target's outage began, if a breaker defers it: the "open too long" alarm's age. */
  readonly outageStartMs?: number | undefined;
}

/**
 * The event's deadline as the claim will judge it. `policy.deadlineSeconds` counts from the
 * event's first sight (the record's `createdAt`), so the record is read: one read per
 * deferral, never on the path of a call. Before the first sight there is no record, and the
 * deferral or claim that creates it will stamp a time no earlier than now, so now stands in for
 * it: the deadline given is never later than the claim's. It must not be earlier either: an
 * event this judges past its deadline goes on to the claim without a slot of its target's
 * concurrency limit, trusting the claim to dead-letter it without a call (the message's send
 * time, used here before, let first attempts through to the target over the limit).
 */
export const deadlineOf = async (
  { deps }: OrchestratorContext,
  { envelope, policy }: MessageInHand,
): Promise<number | undefined> => {
  const record =
    policy.deadlineSeconds === undefined ? undefined : await deps.store.get(envelope.eventId);
  const firstSeenMs = record === undefined ? deps.clock() : Date.parse(record.createdAt);
  return effectiveDeadlineMs(envelope.deadline, policy, firstSeenMs);
};

/**
 * Notes the deferral on the event's record (creating it, pending, on the event's first sight),
 * so that status, the console and cancel see the event and why it waits. A record it may not
 * touch is returned when it settles the message now, as the claim would later: a cancelled
 * event's message is dropped, another envelope's is a conflicting resubmission. Anything else
 * (an attempt in flight, a finished event, another generation) is left to the deferred
 * message's claim.
 */
const noteDeferral = async (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
  deferral: Deferral,
  dueMs: number,
): Promise<MessageVerdict | undefined> => {
  const { deps } = ctx;
  const { envelope, policy, target } = inHand;
  const digest = envelopeDigest(envelope);
  const written = await deps.store.recordDeferral({
    eventId: envelope.eventId,
    generation: inHand.generation,
    nowMs: deps.clock(),
    envelopeDigest: digest,
    attemptBudget: policy.maxAttempts,
    targetSummary: describeTarget(envelope.target),
    targetGroup: target.group,
    policyAdjustments: inHand.policyAdjustments,
    dueMs,
    cause: deferral.cause,
    targetKey: target.key,
  });
  if (written.kind === "recorded" || written.record === undefined) return undefined;
  const { record } = written;
  if (!sameEnvelope(record, digest)) return refuseConflict(ctx, inHand, digest, record);
  return record.status === EventStatus.CANCELLED ? dropCancelled(ctx, inHand, record) : undefined;
};

/**
 * The target's breaker is open, or the target is at a limit: the event goes back to the
 * internal queue at its own generation, due when a call may be let through, like a hop. No
 * claim is made, so no attempt is spent; the record says the event is deferred, why, and when it
 * is tried next (one write, before the send: a crash in between leaves the source message to
 * come back). The deadline wins: a deferral never takes the event past it, and past it the event
 * is not deferred at all (undefined is returned) so that the claim dead-letters it. `deadline`:
 * the {@link deadlineOf} a caller already read, so that the record is read once.
 */
export const defer = async (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
  deferral: Deferral,
  deadline: Promise<number | undefined> = deadlineOf(ctx, inHand),
): Promise<MessageVerdict | undefined> => {
  const { deps } = ctx;
  const { envelope, target } = inHand;
  const deadlineMs = await deadline;
  // Judged as the claim judges it (`claimedAtMs > deadlineMs`): past it here is past it there.
  if (deadlineMs !== undefined && deps.clock() > deadlineMs) return undefined;
  const { untilMs, outageStartMs } = deferral;
  const dueMs = deadlineMs === undefined ? untilMs : Math.min(untilMs, deadlineMs);
  const settled = await noteDeferral(ctx, inHand, deferral, dueMs);
  if (settled !== undefined) return settled;
  await resendFor(ctx, inHand, dueMs);
  ctx.countOutcome(MetricName.DEFERRED, target.key);
  if (outageStartMs !== undefined)
    deps.metrics.timing(MetricName.BREAKER_OPEN_AGE, Math.max(0, deps.clock() - outageStartMs));
  deps.log.info(`event deferred: ${deferralReason(deferral.cause)}`, {
    eventId: envelope.eventId,
    target: target.key,
    until: new Date(dueMs).toISOString(),
  });
  return ACK;
};

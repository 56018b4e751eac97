import { MetricName } from "../../contract/metric-names.js";
import { isInvalidPlaceholder, sameEnvelope } from "../../core/claim.js";
import { envelopeDigest } from "../../core/envelope-digest.js";
import { describeTarget } from "../../core/redact.js";
import { hopDelaySeconds, scheduleProblems } from "../../core/schedule.js";
import { EventStatus } from "../../core/status.js";
import { dropCancelled, refuseConflict } from "./event-refusals.js";
import { deadLetterInvalid } from "./message-admission.js";
import type { MessageInHand } from "./message-in-hand.js";
import {
  ACK,
  type MessageVerdict,
  type OrchestratorContext,
  scheduleOf,
} from "./orchestrator-context.js";

/*
 * An event not yet due waits on the internal queue: a message's delay is at most `hopSeconds`,
 * so a longer wait is a chain of hops, each re-sending the same message on arrival.
 */

/** When the waiting event is due, and the delay of the next hop towards it. */
export interface Wait {
  readonly dueMs: number;
  readonly delaySeconds: number;
}

/**
 * Re-sends the message on the internal queue at its own generation, due at `notBeforeMs`, with
 * a delay of at most `hopSeconds`: a later one is reached by hopping again on arrival. The
 * producer's trace context goes with it, so that every hop and deferral stays in its trace.
 */
export const resendFor = async (
  { deps }: OrchestratorContext,
  { message }: MessageInHand,
  notBeforeMs: number,
  delaySeconds = hopDelaySeconds(notBeforeMs, deps.clock(), deps.hopSeconds),
): Promise<void> => {
  const schedule = { ...scheduleOf(message), notBeforeMs, trace: message.trace };
  await deps.ingress.send(message.body, schedule, delaySeconds);
};

/** Records the event as scheduled, due at `dueMs` (a no-op over any other record). */
const recordSchedule = (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
  digest: string,
  dueMs: number,
): Promise<void> => {
  const { envelope, policy } = inHand;
  return ctx.deps.store.recordScheduled({
    eventId: envelope.eventId,
    envelopeDigest: digest,
    dueMs,
    nowMs: ctx.deps.clock(),
    attemptBudget: policy.maxAttempts,
    targetSummary: describeTarget(envelope.target),
    targetGroup: inHand.target.group,
    policyAdjustments: inHand.policyAdjustments,
  });
};

/**
 * A long delay is reached by re-sending the same message in hops of at most `hopSeconds`. A
 * hop reads the record first (one read per hop, never on a call's path), so that a cancelled
 * event's chain of hops (a scheduled event's, or a long retry's) ends at the next one instead
 * of when it falls due. A first schedule's hop that finds no record (the producer's message sent
 * it, then failed to record the schedule, and has yet to come back) records it, so that the
 * event is never acknowledged unrecorded: status, the console and cancel see it meanwhile.
 */
export const hop = async (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
  wait: Wait,
): Promise<MessageVerdict> => {
  const { deps } = ctx;
  const { envelope } = inHand;
  const record = await deps.store.get(envelope.eventId);
  if (record?.status === EventStatus.CANCELLED) {
    // A conflicting resubmission deferred on its way (a breaker, a limit) is counted, as its
    // claim would have; only the event's own envelope is dropped as the cancel's.
    const digest = envelopeDigest(envelope);
    return sameEnvelope(record, digest)
      ? dropCancelled(ctx, inHand, record)
      : refuseConflict(ctx, inHand, digest, record);
  }
  await resendFor(ctx, inHand, wait.dueMs, wait.delaySeconds);
  if (record === undefined && inHand.generation === 0)
    await recordSchedule(ctx, inHand, envelopeDigest(envelope), wait.dueMs);
  deps.metrics.count(MetricName.HOP);
  return ACK;
};

/**
 * The producer's message of an event whose `notBefore` is ahead: no call, no attempt. The first
 * hop is sent, then the event is recorded as `scheduled` (send before record: a crash between
 * the two leaves the producer's message to come back, never a record without a message). A
 * record that exists already means the event has its hops (or has moved on): this message is a
 * duplicate, or a conflicting resubmission.
 */
export const scheduleFirst = async (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
  wait: Wait,
): Promise<MessageVerdict> => {
  const { deps } = ctx;
  const { envelope, policy } = inHand;
  const { dueMs } = wait;
  const problems = scheduleProblems(envelope.notBefore, policy.deadlineSeconds, deps.clock());
  if (problems.length > 0) {
    return deadLetterInvalid(ctx, inHand.message, problems, envelope.eventId);
  }
  const digest = envelopeDigest(envelope);
  const record = await deps.store.get(envelope.eventId);
  if (record !== undefined && !isInvalidPlaceholder(record)) {
    if (!sameEnvelope(record, digest)) {
      return refuseConflict(ctx, inHand, digest, record);
    }
    deps.metrics.count(MetricName.DUPLICATE_SUPPRESSED);
    deps.log.info("duplicate of a scheduled event acknowledged", {
      eventId: envelope.eventId,
      status: record.status,
    });
    return ACK;
  }
  await resendFor(ctx, inHand, dueMs, wait.delaySeconds);
  // An invalid envelope's placeholder is left in place (the write is refused): the hops carry
  // the corrected event, and its first claim replaces the placeholder as usual.
  await recordSchedule(ctx, inHand, digest, dueMs);
  deps.metrics.count(MetricName.HOP);
  deps.log.info("event scheduled", {
    eventId: envelope.eventId,
    due: new Date(dueMs).toISOString(),
  });
  return ACK;
};

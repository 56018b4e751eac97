import { MetricName } from "../../contract/metric-names.js";
import { sameEnvelope } from "../../core/claim.js";
import { effectiveDeadlineMs } from "../../core/decide.js";
import { type DeferralCause, deferralReason } from "../../core/deferral.js";
import type { Envelope } from "../../core/envelope.js";
import { envelopeDigest } from "../../core/envelope-digest.js";
import type { RetryPolicy } from "../../core/policy.js";
import type { ReceivedMessage } from "../../core/ports.js";
import { describeTarget } from "../../core/redact.js";
import { EventStatus } from "../../core/status.js";
import { dropCancelled, refuseConflict } from "./event-refusals.js";
import { resendFor } from "./hop.js";
import type { AdmittedEvent } from "./message-admission.js";
import {
  ACK,
  type MessageVerdict,
  type OrchestratorContext,
  scheduleOf,
} from "./orchestrator-context.js";

/** Why and until when a target turns an event away. */
export interface Deferral {
  /** The target's key, for the record and the log. */
  readonly key: string;
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
const deadlineOf = async (
  { deps }: OrchestratorContext,
  envelope: Envelope,
  policy: RetryPolicy,
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
  message: ReceivedMessage,
  event: AdmittedEvent,
  deferral: Deferral,
  dueMs: number,
): Promise<MessageVerdict | undefined> => {
  const { deps } = ctx;
  const { envelope, policy } = event;
  const digest = envelopeDigest(envelope);
  const written = await deps.store.recordDeferral({
    eventId: envelope.eventId,
    generation: scheduleOf(message).generation,
    nowMs: deps.clock(),
    envelopeDigest: digest,
    attemptBudget: policy.maxAttempts,
    targetSummary: describeTarget(envelope.target),
    targetGroup: ctx.keyOf(envelope.target).group,
    policyAdjustments: event.policyAdjustments,
    dueMs,
    cause: deferral.cause,
    targetKey: deferral.key,
  });
  if (written.kind === "recorded" || written.record === undefined) return undefined;
  const { record } = written;
  if (!sameEnvelope(record, digest)) return refuseConflict(ctx, envelope, digest, record, message);
  return record.status === EventStatus.CANCELLED ? dropCancelled(ctx, message, record) : undefined;
};

/**
 * The target's breaker is open, or the target is at a limit: the event goes back to the
 * internal queue at its own generation, due when a call may be let through, like a hop. No
 * claim is made, so no attempt is spent; the record says the event is deferred, why, and when it
 * is tried next (one write, before the send: a crash in between leaves the source message to
 * come back). The deadline wins: a deferral never takes the event past it, and past it the event
 * is not deferred at all (undefined is returned) so that the claim dead-letters it.
 */
export const defer = async (
  ctx: OrchestratorContext,
  message: ReceivedMessage,
  event: AdmittedEvent,
  deferral: Deferral,
): Promise<MessageVerdict | undefined> => {
  const { deps } = ctx;
  const { envelope, policy } = event;
  const deadlineMs = await deadlineOf(ctx, envelope, policy);
  // Judged as the claim judges it (`claimedAtMs > deadlineMs`): past it here is past it there.
  if (deadlineMs !== undefined && deps.clock() > deadlineMs) return undefined;
  const { untilMs, outageStartMs } = deferral;
  const dueMs = deadlineMs === undefined ? untilMs : Math.min(untilMs, deadlineMs);
  const settled = await noteDeferral(ctx, message, event, deferral, dueMs);
  if (settled !== undefined) return settled;
  await resendFor(ctx, message, dueMs);
  ctx.countOutcome(MetricName.DEFERRED, envelope);
  if (outageStartMs !== undefined)
    deps.metrics.timing(MetricName.BREAKER_OPEN_AGE, Math.max(0, deps.clock() - outageStartMs));
  deps.log.info(`event deferred: ${deferralReason(deferral.cause)}`, {
    eventId: envelope.eventId,
    target: deferral.key,
    until: new Date(dueMs).toISOString(),
  });
  return ACK;
};

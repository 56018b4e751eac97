import { MetricName } from "../contract/metric-names.js";
import { effectiveDeadlineMs } from "../core/decide.js";
import type { Envelope } from "../core/envelope.js";
import type { RetryPolicy } from "../core/policy.js";
import type { ReceivedMessage } from "../core/ports.js";
import { resendFor } from "./hop.js";
import { ACK, type MessageVerdict, type OrchestratorContext } from "./orchestrator-context.js";

/** Why and until when a target turns an event away. */
export interface Deferral {
  /** The target's key, for the log. */
  readonly key: string;
  readonly untilMs: number;
  /** Completes the log line "event deferred: …". */
  readonly because: string;
  /** When the target's outage began, if a breaker defers it: the "open too long" alarm's age. */
  readonly outageStartMs?: number | undefined;
}

/**
 * The event's deadline as the claim will judge it. `policy.deadlineSeconds` counts from the
 * event's first claim (the record's `createdAt`), so the record is read: one read per
 * deferral, never on the path of a call. Before the first claim there is no record, and the
 * claim that creates it will stamp a time no earlier than now, so now stands in for it: the
 * deadline given is never later than the claim's. It must not be earlier either: an event this
 * judges past its deadline goes on to the claim without a slot of its target's concurrency
 * limit, trusting the claim to dead-letter it without a call (the message's send time, used
 * here before, let first attempts through to the target over the limit).
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
 * The target's breaker is open, or the target is at a limit: the event goes back to the
 * internal queue at its own generation, due when a call may be let through, like a hop. No
 * claim is made, so no attempt is spent and the record is not touched. The deadline wins: a
 * deferral never takes the event past it, and past it the event is not deferred at all
 * (undefined is returned) so that the claim dead-letters it.
 */
export const defer = async (
  ctx: OrchestratorContext,
  message: ReceivedMessage,
  envelope: Envelope,
  policy: RetryPolicy,
  deferral: Deferral,
): Promise<MessageVerdict | undefined> => {
  const { deps } = ctx;
  const deadlineMs = await deadlineOf(ctx, envelope, policy);
  // Judged as the claim judges it (`claimedAtMs > deadlineMs`): past it here is past it there.
  if (deadlineMs !== undefined && deps.clock() > deadlineMs) return undefined;
  const { untilMs, outageStartMs } = deferral;
  const dueMs = deadlineMs === undefined ? untilMs : Math.min(untilMs, deadlineMs);
  await resendFor(ctx, message, dueMs);
  ctx.countOutcome(MetricName.DEFERRED, envelope);
  if (outageStartMs !== undefined)
    deps.metrics.timing(MetricName.BREAKER_OPEN_AGE, Math.max(0, deps.clock() - outageStartMs));
  deps.log.info(`event deferred: ${deferral.because}`, {
    eventId: envelope.eventId,
    target: deferral.key,
    until: new Date(dueMs).toISOString(),
  });
  return ACK;
};

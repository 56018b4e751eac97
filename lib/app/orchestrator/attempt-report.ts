import { MetricName } from "../../contract/metric-names.js";
import type { EventRecord } from "../../core/record.js";
import type { AttemptEnd } from "./attempt.js";
import type { MessageInHand } from "./message-in-hand.js";
import { ACK, type MessageVerdict, type OrchestratorContext } from "./orchestrator-context.js";

/** The metric each decision is counted under. */
const COUNTED = {
  delivered: MetricName.DELIVERED,
  retry: MetricName.RETRY_SCHEDULED,
  rejected: MetricName.REJECTED,
  dead_letter: MetricName.DEAD_LETTERED,
} as const;

/**
 * Counts and logs how a claimed attempt ended, and gives its message's verdict: deleted once the
 * result is recorded, left on the queue when the lease was lost before it could be (the event's
 * new holder decides what happens to it).
 */
export const reportAttempt = (
  ctx: OrchestratorContext,
  { envelope, target }: MessageInHand,
  claimed: EventRecord,
  end: AttemptEnd,
): MessageVerdict => {
  const { metrics, log } = ctx.deps;
  if (end.kind === "lease_lost") {
    metrics.count(MetricName.LEASE_LOST);
    log.warn("lease lost before the result was recorded", { eventId: envelope.eventId });
    return { kind: "retry_later", reason: "lease lost" };
  }
  metrics.timing(MetricName.ATTEMPT_LATENCY, end.latencyMs);
  ctx.countOutcome(COUNTED[end.decision.kind], target.key);
  log.info("attempt finished", {
    eventId: envelope.eventId,
    attempt: claimed.attempts,
    outcome: end.outcome.class,
    statusCode: end.outcome.statusCode,
    errorCategory: end.outcome.errorCategory,
    decision: end.decision.kind,
    delaySeconds: end.decision.kind === "retry" ? end.decision.delaySeconds : undefined,
  });
  return ACK;
};

import { MetricName } from "../../contract/metric-names.js";
import type { ClaimVerdict, claimVerdict } from "../../core/claim-verdict.js";
import { dropCancelled, refuseConflict } from "./event-refusals.js";
import type { MessageInHand } from "./message-in-hand.js";
import { ACK, type MessageVerdict, type OrchestratorContext } from "./orchestrator-context.js";

/** A claim that gave no attempt, as {@link claimVerdict} judged it. */
export type ClaimRefusal = Exclude<ClaimVerdict, { kind: "attempt" }>;

/**
 * Carries out a refused claim's verdict: counts and logs it, writes a conflict to the record,
 * and hides a message that must wait for the time the verdict says. `digest` is the digest of
 * the envelope the claim was made for.
 */
export const carryOutRefusal = async (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
  digest: string,
  refusal: ClaimRefusal,
): Promise<MessageVerdict> => {
  const { metrics, log, ingress } = ctx.deps;
  const { message, envelope } = inHand;
  if (refusal.kind === "retry_later") {
    if (refusal.cause === "lease_held") metrics.count(MetricName.LEASE_CONFLICT);
    await ingress.changeVisibility(message, refusal.visibilitySeconds);
    return { kind: "retry_later", reason: refusal.reason };
  }
  switch (refusal.cause) {
    case "cancelled":
      return dropCancelled(ctx, inHand, refusal.record);
    case "duplicate":
      metrics.count(MetricName.DUPLICATE_SUPPRESSED);
      log.info("duplicate of a finished event acknowledged", {
        eventId: envelope.eventId,
        status: refusal.record.status,
      });
      return ACK;
    case "stale":
      metrics.count(MetricName.STALE_DROPPED);
      return ACK;
    case "conflict":
      return refuseConflict(ctx, inHand, digest, refusal.record);
    case "orphan":
      metrics.count(MetricName.ORPHAN_DROPPED);
      log.warn("dropped a copy its issuer never recorded", {
        eventId: refusal.record.eventId,
        messageId: message.messageId,
        reason: refusal.reason,
      });
      return ACK;
  }
};

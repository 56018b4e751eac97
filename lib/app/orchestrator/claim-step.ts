import { claimVerdict } from "../../core/claim-verdict.js";
import { envelopeDigest } from "../../core/envelope-digest.js";
import { describeTarget } from "../../core/redact.js";
import { type AttemptEnd, runClaimedAttempt } from "./attempt.js";
import { reportAttempt } from "./attempt-report.js";
import { carryOutRefusal } from "./claim-refusal.js";
import type { MessageInHand } from "./message-in-hand.js";
import type { MessageVerdict, OrchestratorContext } from "./orchestrator-context.js";

/** What became of a message past its target's gate: its verdict, and its attempt if it made one. */
export interface ClaimTaken {
  readonly verdict: MessageVerdict;
  /** How the attempt ended; undefined when the claim gave none (no call was made). */
  readonly attempt?: AttemptEnd | undefined;
}

/**
 * Claims the event for the message's generation and, if the claim gives it, runs the attempt.
 * The lease covers the call (the target's timeout, cut to the call budget) and a margin.
 */
export const claimAndAttempt = async (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
): Promise<ClaimTaken> => {
  const { deps } = ctx;
  const { envelope, policy, message, generation, callMs } = inHand;
  const digest = envelopeDigest(envelope);
  const claim = await deps.store.claim({
    eventId: envelope.eventId,
    generation,
    envelopeDigest: digest,
    worker: deps.workerId,
    nowMs: deps.clock(),
    leaseMs: callMs + deps.leaseMarginMs,
    attemptBudget: policy.maxAttempts,
    targetSummary: describeTarget(envelope.target),
    targetGroup: inHand.target.group,
    policyAdjustments: inHand.policyAdjustments,
  });
  const next = claimVerdict(
    claim,
    { generation, receiveCount: message.receiveCount },
    deps.clock(),
  );
  if (next.kind !== "attempt") {
    return { verdict: await carryOutRefusal(ctx, inHand, digest, next) };
  }

  if (next.takeover)
    deps.log.warn("lease expired; taking the event over", { eventId: envelope.eventId });
  const leaseEndMs = next.record.leaseExpiresAt ?? Number.POSITIVE_INFINITY;
  // The lease was timed before the claim's write; if that write was slow (SDK retries), the
  // call must still end a margin before the lease does, or another worker could take over.
  const callTimeoutMs = Math.max(
    0,
    Math.min(callMs, leaseEndMs - deps.clock() - deps.leaseMarginMs),
  );
  const attempt = await runClaimedAttempt(deps, {
    inHand,
    record: next.record,
    target: deps.targets.forTarget(envelope.target.type),
    callTimeoutMs,
    callCutByLease: callTimeoutMs < callMs,
  });
  return { verdict: reportAttempt(ctx, inHand, next.record, attempt), attempt };
};

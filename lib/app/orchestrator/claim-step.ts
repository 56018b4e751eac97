import { claimVerdict } from "../../core/claim-verdict.js";
import { envelopeDigest } from "../../core/envelope-digest.js";
import type { ReceivedMessage } from "../../core/ports.js";
import { describeTarget } from "../../core/redact.js";
import type { TargetKeyResolution } from "../../core/target-groups.js";
import { type AttemptEnd, runClaimedAttempt } from "./attempt.js";
import { reportAttempt } from "./attempt-report.js";
import { carryOutRefusal } from "./claim-refusal.js";
import type { AdmittedEvent } from "./message-admission.js";
import {
  callMsOf,
  type MessageVerdict,
  type OrchestratorContext,
  scheduleOf,
} from "./orchestrator-context.js";

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
  message: ReceivedMessage,
  event: AdmittedEvent,
  target: TargetKeyResolution,
  callBudgetMs: number,
): Promise<ClaimTaken> => {
  const { deps } = ctx;
  const { envelope, policy } = event;
  const { generation } = scheduleOf(message);
  const digest = envelopeDigest(envelope);
  const callMs = callMsOf(envelope, callBudgetMs);
  const claim = await deps.store.claim({
    eventId: envelope.eventId,
    generation,
    envelopeDigest: digest,
    worker: deps.workerId,
    nowMs: deps.clock(),
    leaseMs: callMs + deps.leaseMarginMs,
    attemptBudget: policy.maxAttempts,
    targetSummary: describeTarget(envelope.target),
    targetGroup: target.group,
    policyAdjustments: event.policyAdjustments,
  });
  const next = claimVerdict(
    claim,
    { generation, receiveCount: message.receiveCount },
    deps.clock(),
  );
  if (next.kind !== "attempt") {
    return { verdict: await carryOutRefusal(ctx, message, envelope, digest, next) };
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
    envelope,
    body: message.body,
    policy,
    record: next.record,
    target: deps.targets.forTarget(envelope.target.type),
    targetKey: target.key,
    callTimeoutMs,
    callCutByLease: callTimeoutMs < callMs,
    trace: message.trace,
  });
  return { verdict: reportAttempt(ctx, envelope, next.record, attempt), attempt };
};

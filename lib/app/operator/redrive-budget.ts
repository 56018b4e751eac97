import type { Envelope } from "../../core/envelope.js";
import { type RetryPolicy, resolvePolicy } from "../../core/policy.js";
import {
  applyPolicyLimits,
  DEFAULT_POLICY_LIMITS,
  type PolicyLimits,
} from "../../core/policy-limits.js";
import type { EventRecord } from "../../core/record.js";
import { DEFAULT_EXTRA_ATTEMPTS, type RedriveRequest } from "./redrive-request.js";

/** The budget a redrive (or a replay) grants: attempts made so far plus the ones it adds. */
export const redriveBudget = (
  record: EventRecord,
  envelope: Envelope,
  request: Pick<RedriveRequest, "resetAttempts" | "extraAttempts">,
  defaultPolicy: RetryPolicy,
  limits: PolicyLimits = DEFAULT_POLICY_LIMITS,
): number => {
  if (request.resetAttempts === true) {
    // The same bounds as the orchestrator's: a reset never grants more than the ceiling.
    const { policy } = applyPolicyLimits(resolvePolicy(defaultPolicy, envelope.policy), limits);
    return record.attempts + policy.maxAttempts;
  }
  return record.attempts + (request.extraAttempts ?? DEFAULT_EXTRA_ATTEMPTS);
};

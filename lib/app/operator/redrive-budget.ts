import type { Envelope } from "../../core/envelope.js";
import { type RetryPolicy, resolvePolicy } from "../../core/policy.js";
import {
  applyPolicyLimits,
  DEFAULT_POLICY_LIMITS,
  type PolicyLimits,
} from "../../core/policy-limits.js";
import type { EventRecord } from "../../core/record.js";
import { DEFAULT_EXTRA_ATTEMPTS, type RedriveRequest } from "./redrive-request.js";

/**
 * The deployment's policy, and its bounds on an envelope's override (default
 * {@link DEFAULT_POLICY_LIMITS}).
 */
interface DeploymentPolicy {
  readonly defaultPolicy: RetryPolicy;
  readonly policyLimits?: PolicyLimits | undefined;
}

/**
 * The budget a redrive (or a replay) grants: attempts made so far plus the ones it adds. A
 * reset grants the event's own policy's attempts, as the deployment's policy and bounds make it.
 */
export const redriveBudget = (
  record: EventRecord,
  envelope: Envelope,
  request: Pick<RedriveRequest, "resetAttempts" | "extraAttempts">,
  { defaultPolicy, policyLimits = DEFAULT_POLICY_LIMITS }: DeploymentPolicy,
): number => {
  if (request.resetAttempts === true) {
    // The same bounds as the orchestrator's: a reset never grants more than the ceiling.
    const resolved = resolvePolicy(defaultPolicy, envelope.policy);
    const { policy } = applyPolicyLimits(resolved, policyLimits);
    return record.attempts + policy.maxAttempts;
  }
  return record.attempts + (request.extraAttempts ?? DEFAULT_EXTRA_ATTEMPTS);
};

import { ENV } from "../contract/environment.js";
import { ConfigurationError, formatProblems } from "../core/errors.js";
import {
  completePolicyLimits,
  type PolicyLimits,
  type PolicyLimitsOverride,
  PolicyLimitsSchema,
} from "../core/policy-limits.js";
import { toProblems } from "../core/zod-problems.js";

/**
 * The deployment's policy limits as the CLI can know them: `overrides` (flags) over
 * `RICOCHET_POLICY_LIMITS` (as the functions read it) over the built-in defaults. `policy
 * explain` reports them and `redrive --reset-attempts` clamps by them.
 * @throws ConfigurationError when the variable or an override holds an invalid limit.
 */
export const policyLimitsFromEnv = (
  overrides: PolicyLimitsOverride = {},
  env: NodeJS.ProcessEnv = process.env,
): PolicyLimits => {
  const raw = env[ENV.POLICY_LIMITS];
  let fromEnv: unknown = {};
  if (raw !== undefined && raw.trim() !== "") {
    try {
      fromEnv = JSON.parse(raw);
    } catch {
      throw new ConfigurationError(`${ENV.POLICY_LIMITS} is not valid JSON`);
    }
  }
  if (typeof fromEnv !== "object" || fromEnv === null || Array.isArray(fromEnv)) {
    throw new ConfigurationError(`${ENV.POLICY_LIMITS} must be a JSON object`);
  }
  const parsed = PolicyLimitsSchema.safeParse({ ...fromEnv, ...overrides });
  if (!parsed.success) {
    throw new ConfigurationError(
      `invalid policy limits: ${formatProblems(toProblems(parsed.error))}`,
    );
  }
  return completePolicyLimits(parsed.data);
};

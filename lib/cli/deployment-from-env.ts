import { DEFAULT_RECORD_RETENTION_DAYS } from "../contract/defaults.js";
import { ENV } from "../contract/environment.js";
import { ConfigurationError } from "../core/errors.js";
import { DEFAULT_POLICY, type RetryPolicy, resolvePolicy } from "../core/policy.js";

/*
 * The deployment settings an operator command needs to act as the functions would, read from
 * the same RICOCHET_* variables the functions are given (the CLI cannot read a deployed
 * function's configuration; set them to the stack's values when the deployment overrides them).
 */

/**
 * The deployment's default policy: the built-in default with RICOCHET_DEFAULT_POLICY over it, so
 * `redrive --reset-attempts` and `replay` grant what the functions would.
 * @throws ConfigurationError when the variable is not valid JSON.
 */
export const defaultPolicyFromEnv = (env: NodeJS.ProcessEnv = process.env): RetryPolicy => {
  const raw = env[ENV.DEFAULT_POLICY];
  if (raw === undefined || raw.trim() === "") return DEFAULT_POLICY;
  try {
    return resolvePolicy(DEFAULT_POLICY, JSON.parse(raw));
  } catch (error) {
    if (error instanceof SyntaxError)
      throw new ConfigurationError(`${ENV.DEFAULT_POLICY} is not valid JSON`);
    throw error;
  }
};

/**
 * How long a record the CLI finishes (a cancel) is kept, in seconds: RICOCHET_RECORD_RETENTION_DAYS
 * as the functions read it.
 * @throws ConfigurationError when the variable is not a positive number of days.
 */
export const recordRetentionSecondsFromEnv = (env: NodeJS.ProcessEnv = process.env): number => {
  const raw = env[ENV.RECORD_RETENTION_DAYS];
  const days = raw === undefined || raw.trim() === "" ? DEFAULT_RECORD_RETENTION_DAYS : Number(raw);
  if (!Number.isFinite(days) || days <= 0)
    throw new ConfigurationError(`${ENV.RECORD_RETENTION_DAYS} must be a positive number of days`);
  return Math.round(days * 86_400);
};

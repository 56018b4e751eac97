import { ENV } from "../contract/environment.js";
import { ConfigurationError } from "../core/errors.js";
import { DEFAULT_POLICY, type RetryPolicy, resolvePolicy } from "../core/policy.js";
import { recordRetentionDaysFromEnv, retentionSeconds } from "../runtime/config.js";

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
 * by the functions' own rule, so a cancel from the CLI keeps a record as long as one from them.
 * @throws ConfigurationError when the variable is not a whole number of days from 1 to 3650.
 */
export const recordRetentionSecondsFromEnv = (env: NodeJS.ProcessEnv = process.env): number =>
  retentionSeconds(recordRetentionDaysFromEnv(env));

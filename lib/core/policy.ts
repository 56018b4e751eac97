import * as z from "zod";
import { InvalidPolicyError } from "./errors.js";
import { VerdictErrorType } from "./lambda-verdict.js";
import { checkParams, OrchestratorOnlyChecks } from "./orchestrator-only-checks.js";
import { toProblems } from "./zod-problems.js";

/** How the delay before a retry is drawn below its ceiling. */
export const Jitter = {
  FULL: "full",
  EQUAL: "equal",
  DECORRELATED: "decorrelated",
  NONE: "none",
} as const;
export type Jitter = (typeof Jitter)[keyof typeof Jitter];

/** Error categories a target adapter reports when no HTTP status was received. */
export const ErrorCategory = {
  CONNECTION_REFUSED: "connection_refused",
  CONNECTION_RESET: "connection_reset",
  DNS_FAILURE: "dns_failure",
  TIMEOUT: "timeout",
  INVALID_TARGET: "invalid_target",
  TARGET_REFUSED: "target_refused",
  FUNCTION_ERROR: "function_error",
  THROTTLED: "throttled",
  UNKNOWN: "unknown",
} as const;
export type ErrorCategory = (typeof ErrorCategory)[keyof typeof ErrorCategory];

const statusOrCategory = z.union([
  z.int().min(100).max(599),
  z.enum(Object.values(ErrorCategory) as [ErrorCategory, ...ErrorCategory[]]),
]);

/** Most names in one of the policy's Lambda error-type lists. */
const MAX_ERROR_TYPES = 50;

const VERDICT_TYPES: readonly string[] = Object.values(VerdictErrorType);

const MAX_ERROR_TYPE_LENGTH = 256;

/**
 * A Lambda function error's `errorType` as its runtime reports it (`TypeError`,
 * `Sandbox.Timedout`, `java.lang.IllegalStateException`), matched exactly.
 */
const errorTypeName = z
  .string()
  .min(1, "must not be empty")
  // Counted in code points, as JSON Schema's maxLength counts, not in UTF-16 units.
  .refine((name) => [...name].length <= MAX_ERROR_TYPE_LENGTH, {
    error: `must be at most ${MAX_ERROR_TYPE_LENGTH} characters`,
  })
  // Spaces and controls named by code, not \S: JavaScript's and Python's \s are different sets.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what it refuses.
  .regex(/^[^\x00-\x20\x7f]+$/, "must be an error type name, without spaces or control characters")
  .refine((name) => !VERDICT_TYPES.includes(name), {
    message: "is a verdict the function gives, not an error to classify (see the Lambda verdicts)",
  })
  .meta({ maxLength: MAX_ERROR_TYPE_LENGTH, not: { enum: VERDICT_TYPES } });

/** Longest delay Ricochet will schedule: the dead-letter queue's retention (14 days). */
export const MAX_DELAY_LIMIT_SECONDS = 14 * 24 * 3600;

/**
 * The fields of a retry policy. Every field is optional here so the same shape serves as a
 * per-event override; {@link CompletePolicySchema} is the complete, cross-checked policy.
 */
export const PolicyFieldsSchema = z.strictObject({
  maxAttempts: z
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .optional()
    .describe("Total runs of the event, the first attempt included."),
  baseDelaySeconds: z
    .int("must be a whole number of seconds")
    .min(0, "must not be negative")
    .max(MAX_DELAY_LIMIT_SECONDS)
    .optional()
    .describe("Ceiling of the first retry's delay."),
  multiplier: z
    .number()
    .min(1, "must be at least 1 (a multiplier below 1 would shrink the delays)")
    .max(10, "must be at most 10")
    .optional()
    .describe("Growth of the ceiling from one retry to the next."),
  maxDelaySeconds: z
    .int("must be a whole number of seconds")
    .min(0, "must not be negative")
    .max(MAX_DELAY_LIMIT_SECONDS)
    .optional()
    .describe("Cap on every retry's ceiling."),
  jitter: z
    .enum(["full", "equal", "decorrelated", "none"])
    .optional()
    .describe("How the delay is drawn below the ceiling."),
  deadlineSeconds: z
    .int("must be a whole number of seconds")
    .min(1, "must be at least 1")
    .max(MAX_DELAY_LIMIT_SECONDS)
    .optional()
    .describe("No attempt starts later than this many seconds after the event was first seen."),
  maxRetryAfterSeconds: z
    .int("must be a whole number of seconds")
    .min(0, "must not be negative")
    .max(MAX_DELAY_LIMIT_SECONDS)
    .optional()
    .describe("Largest Retry-After hint honoured; a longer hint is cut to this."),
  retryOnStatus: z
    .array(statusOrCategory)
    .max(100)
    .optional()
    .describe("Status codes or error categories always retried (like Celery's autoretry_for)."),
  noRetryOnStatus: z
    .array(statusOrCategory)
    .max(100)
    .optional()
    .describe("Status codes or error categories never retried (like dont_autoretry_for)."),
  noRetryErrorTypes: z
    .array(errorTypeName)
    .max(MAX_ERROR_TYPES)
    .optional()
    .describe(
      "Lambda function error types (errorType) never retried: such an error rejects the event (like Celery's dont_autoretry_for).",
    ),
  retryOnlyErrorTypes: z
    .array(errorTypeName)
    .max(MAX_ERROR_TYPES)
    .optional()
    .describe(
      "When not empty, the only Lambda function error types retried; any other unhandled error rejects the event (like Celery's autoretry_for).",
    ),
});
export type PolicyOverride = z.infer<typeof PolicyFieldsSchema>;

/** A complete retry policy: every field set, and the fields consistent with each other. */
export type RetryPolicy = Required<Omit<PolicyOverride, "deadlineSeconds">> & {
  readonly deadlineSeconds?: number | undefined;
};

/** The policy used when neither the deployment nor the event says otherwise. */
export const DEFAULT_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 8,
  baseDelaySeconds: 5,
  multiplier: 2,
  maxDelaySeconds: 900,
  jitter: "full",
  maxRetryAfterSeconds: 3600,
  retryOnStatus: [],
  noRetryOnStatus: [],
  noRetryErrorTypes: [],
  retryOnlyErrorTypes: [],
});

const MERGE = checkParams(OrchestratorOnlyChecks.POLICY_MERGE);

const crossChecks = (policy: RetryPolicy, ctx: z.RefinementCtx): void => {
  if (policy.baseDelaySeconds > policy.maxDelaySeconds) {
    ctx.addIssue({
      code: "custom",
      params: MERGE,
      path: ["baseDelaySeconds"],
      message: `must not exceed maxDelaySeconds (${policy.maxDelaySeconds})`,
    });
  }
  const both = policy.retryOnStatus.filter((code) => policy.noRetryOnStatus.includes(code));
  if (both.length > 0) {
    ctx.addIssue({
      code: "custom",
      params: MERGE,
      path: ["retryOnStatus"],
      message: `listed in both retryOnStatus and noRetryOnStatus: ${both.join(", ")}`,
    });
  }
  // Either list alone says everything; both would leave an error type named by neither undecided.
  if (policy.noRetryErrorTypes.length > 0 && policy.retryOnlyErrorTypes.length > 0) {
    ctx.addIssue({
      code: "custom",
      params: MERGE,
      path: ["retryOnlyErrorTypes"],
      message: `cannot be set together with noRetryErrorTypes (${policy.noRetryErrorTypes.join(", ")}): give either the error types never retried or the only ones retried`,
    });
  }
};

/** Every field set and cross-checked; built once, as building a zod schema costs far more than using it. */
const CompletePolicySchema = PolicyFieldsSchema.required({
  maxAttempts: true,
  baseDelaySeconds: true,
  multiplier: true,
  maxDelaySeconds: true,
  jitter: true,
  maxRetryAfterSeconds: true,
  retryOnStatus: true,
  noRetryOnStatus: true,
  noRetryErrorTypes: true,
  retryOnlyErrorTypes: true,
}).superRefine((p, ctx) => crossChecks(p, ctx));

/**
 * Merges overrides over a base policy (later wins) and validates the result as a whole, so a
 * per-event override that breaks the deployment's policy (base above max) is reported as such.
 * @throws InvalidPolicyError listing every problem.
 */
export const resolvePolicy = (
  base: RetryPolicy,
  ...overrides: (PolicyOverride | undefined)[]
): RetryPolicy => {
  const merged: Record<string, unknown> = { ...base };
  for (const override of overrides) {
    if (override === undefined) continue;
    const checked = PolicyFieldsSchema.safeParse(override);
    if (!checked.success) throw new InvalidPolicyError(toProblems(checked.error));
    for (const [key, value] of Object.entries(checked.data)) {
      if (value !== undefined) merged[key] = value;
    }
  }
  const parsed = CompletePolicySchema.safeParse(merged);
  if (!parsed.success) throw new InvalidPolicyError(toProblems(parsed.error));
  return Object.freeze(parsed.data);
};

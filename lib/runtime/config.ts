import * as z from "zod";
import { MAX_SQS_DELAY_SECONDS } from "../contract/aws-limits.js";
import {
  DEFAULT_MESSAGE_CONCURRENCY,
  DEFAULT_RECORD_RETENTION_DAYS,
  DEFAULT_TRACING_MODE,
  MAX_RECORD_RETENTION_DAYS,
  TRACING_MODES,
  type TracingMode,
} from "../contract/defaults.js";
import { ENV, ENV_ALIASES, LAMBDA_RUNTIME_ENV } from "../contract/environment.js";
import { MAX_METRIC_TARGETS } from "../contract/metric-names.js";
import {
  type BreakerSettings,
  BreakerSettingsSchema,
  DEFAULT_BREAKER_SETTINGS,
} from "../core/circuit-breaker.js";
import { ConfigurationError, formatProblems } from "../core/errors.js";
import {
  DEFAULT_POLICY,
  PolicyFieldsSchema,
  type RetryPolicy,
  resolvePolicy,
} from "../core/policy.js";
import {
  completePolicyLimits,
  type PolicyLimits,
  PolicyLimitsSchema,
  policyLimitConflicts,
} from "../core/policy-limits.js";
import { DEFAULT_STUCK_AFTER_SECONDS } from "../core/stuck.js";
import { type TargetsSettings, TargetsSettingsSchema } from "../core/target-settings.js";
import { toProblems } from "../core/zod-problems.js";

const SECONDS_PER_DAY = 86_400;

const RETENTION_RULE = `must be a whole number of days from 1 to ${MAX_RECORD_RETENTION_DAYS}`;

/** RICOCHET_RECORD_RETENTION_DAYS's one rule, for the functions and the CLI alike. */
const RecordRetentionDaysSchema = z
  .int({ error: RETENTION_RULE })
  .min(1, { error: RETENTION_RULE })
  .max(MAX_RECORD_RETENTION_DAYS, { error: RETENTION_RULE });

const ConfigSchema = z.object({
  tableName: z.string().min(1, "is required"),
  ingressQueueUrl: z.string().min(1, "is required"),
  internalQueueUrl: z.string().min(1, "is required"),
  deadLetterQueueUrl: z.string().min(1, "is required"),
  defaultPolicy: PolicyFieldsSchema.optional(),
  allowedTargetHosts: z.array(z.string().min(1)),
  hopSeconds: z.int().min(1).max(MAX_SQS_DELAY_SECONDS),
  stuckAfterSeconds: z.int().min(1),
  recordRetentionDays: RecordRetentionDaysSchema,
  signingSecret: z.string().min(1).optional(),
  legacySignatures: z.enum(["on", "off"], { error: "must be on or off" }),
  adaptiveLimits: z.enum(["on", "off"], { error: "must be on or off" }),
  tracing: z.enum(TRACING_MODES, { error: "must be off, on or console" }),
  secretHeaders: z.array(z.string().min(1)),
  messageConcurrency: z.int().min(1).max(100),
  policyLimits: PolicyLimitsSchema.optional(),
  accountId: z
    .string()
    .regex(/^\d{12}$/, "must be a 12-digit AWS account id")
    .optional(),
  ownFunctionNames: z.array(z.string().min(1)),
  lambdaTargets: z.array(z.string().min(1)),
  circuitBreaker: BreakerSettingsSchema.optional(),
  targets: TargetsSettingsSchema.optional(),
  targetMetrics: z.array(z.string().min(1)).max(MAX_METRIC_TARGETS),
});

/** Ricochet's runtime configuration, read once at start-up. */
export interface RicochetConfig {
  readonly tableName: string;
  readonly ingressQueueUrl: string;
  readonly internalQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly defaultPolicy: RetryPolicy;
  readonly allowedTargetHosts: readonly string[];
  readonly hopSeconds: number;
  /** How long past due a waiting event must be to count as stuck, in seconds. */
  readonly stuckAfterSeconds: number;
  readonly recordRetentionDays: number;
  readonly signingSecret?: string | undefined;
  /** Signed deliveries also carry the legacy `Ricochet-Signature` (default true; lib/core/signing.ts). */
  readonly legacySignatures?: boolean | undefined;
  /** Each target held to the pace its calls say it can take (default false; lib/app/orchestrator/adaptive-limits.ts). */
  readonly adaptiveLimits?: boolean | undefined;
  /** Whether and where spans go (default off: the SDK is never loaded; lib/runtime/tracing.ts). */
  readonly tracing?: TracingMode | undefined;
  readonly secretHeaders: readonly string[];
  readonly messageConcurrency: number;
  /** Bounds every event's policy is clamped to; the default policy lies within them. */
  readonly policyLimits: PolicyLimits;
  /** The deployment's account, when known (always, under the construct). */
  readonly accountId?: string | undefined;
  /** Names of Ricochet's own functions in this deployment: never a Lambda target. */
  readonly ownFunctionNames: readonly string[];
  /** Lambda target ARNs the deployment lists; the only ones allowed in another account. */
  readonly lambdaTargets: readonly string[];
  /** The targets' circuit breakers' settings; undefined when they are off. */
  readonly circuitBreaker?: BreakerSettings | undefined;
  /** Per-target limits and breaker overrides; resolve with `targetSettingsResolver`. */
  readonly targets?: TargetsSettings | undefined;
  /** Target keys whose outcomes are counted under their own `target` dimension value. */
  readonly targetMetrics: readonly string[];
}

/** A comma-separated variable's items, trimmed, empty ones dropped (an unset variable has none). */
export const parseList = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

const numberOr = (value: string | undefined, fallback: number): number =>
  value === undefined || value.trim() === "" ? fallback : Number(value);

const retentionDaysOf = (env: NodeJS.ProcessEnv): number =>
  numberOr(env[ENV.RECORD_RETENTION_DAYS], DEFAULT_RECORD_RETENTION_DAYS);

/**
 * How long a finished record is kept, in days: RICOCHET_RECORD_RETENTION_DAYS, read by the one
 * rule {@link loadConfig} applies, for a process (the CLI) that needs only this setting.
 * @throws ConfigurationError when the variable is not a whole number of days from 1 to 3650.
 */
export const recordRetentionDaysFromEnv = (env: NodeJS.ProcessEnv = process.env): number => {
  const parsed = RecordRetentionDaysSchema.safeParse(retentionDaysOf(env));
  if (!parsed.success)
    throw new ConfigurationError(`${ENV.RECORD_RETENTION_DAYS} ${RETENTION_RULE}`);
  return parsed.data;
};

/** A retention in days as the TTL seconds the store writes. */
export const retentionSeconds = (days: number): number => days * SECONDS_PER_DAY;

const jsonOr = (name: string, value: string | undefined): unknown => {
  if (value === undefined || value.trim() === "") return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw new ConfigurationError(`${name} is not valid JSON`);
  }
};

/**
 * The breakers' setting as `RICOCHET_CIRCUIT_BREAKER` spells it: `off`/unset: none; `on`: the
 * defaults ({} here); else JSON overrides, validated later. `name` says where the value came from.
 */
const breakerSettingsOf = (
  value: string | undefined,
  name: string = ENV.CIRCUIT_BREAKER,
): unknown => {
  const text = value?.trim() ?? "";
  if (text === "" || text === "off") return undefined;
  if (text === "on") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigurationError(
      `${name} must be on, off or a JSON object of breaker settings (e.g. {"minimumCalls":5}), not ${JSON.stringify(text)}`,
    );
  }
};

/**
 * Reads a breakers setting spelled as `RICOCHET_CIRCUIT_BREAKER` is (see {@link loadConfig}),
 * complete with the defaults; undefined when the breakers are off.
 * @param name where the value came from (a flag, a variable), for the error.
 * @throws ConfigurationError for anything but `on`, `off` or valid JSON settings.
 */
export const readBreakerSetting = (
  value: string | undefined,
  name: string = ENV.CIRCUIT_BREAKER,
): BreakerSettings | undefined => {
  const raw = breakerSettingsOf(value, name);
  if (raw === undefined) return undefined;
  const checked = BreakerSettingsSchema.safeParse(raw);
  if (!checked.success) {
    throw new ConfigurationError(`invalid ${name}: ${formatProblems(toProblems(checked.error))}`);
  }
  return { ...DEFAULT_BREAKER_SETTINGS, ...checked.data };
};

/**
 * Reads the configuration from the environment.
 * @throws ConfigurationError naming every missing or invalid variable at once.
 */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): RicochetConfig => {
  const parsed = ConfigSchema.safeParse({
    tableName: env[ENV.TABLE_NAME] ?? "",
    ingressQueueUrl: env[ENV.INGRESS_QUEUE_URL] ?? "",
    internalQueueUrl: env[ENV.INTERNAL_QUEUE_URL] ?? "",
    deadLetterQueueUrl: env[ENV.DEAD_LETTER_QUEUE_URL] ?? "",
    defaultPolicy: jsonOr(ENV.DEFAULT_POLICY, env[ENV.DEFAULT_POLICY]),
    allowedTargetHosts: parseList(env[ENV.ALLOWED_TARGET_HOSTS]),
    hopSeconds: numberOr(env[ENV.HOP_SECONDS], MAX_SQS_DELAY_SECONDS),
    stuckAfterSeconds: numberOr(env[ENV.STUCK_AFTER_SECONDS], DEFAULT_STUCK_AFTER_SECONDS),
    recordRetentionDays: retentionDaysOf(env),
    signingSecret: env[ENV.SIGNING_SECRET] || undefined,
    legacySignatures: env[ENV.LEGACY_SIGNATURES]?.trim() || "on",
    adaptiveLimits: env[ENV.ADAPTIVE_LIMITS]?.trim() || "off",
    tracing: env[ENV.TRACING]?.trim() || DEFAULT_TRACING_MODE,
    secretHeaders: parseList(env[ENV.SECRET_HEADERS]),
    messageConcurrency: numberOr(
      env[ENV.MESSAGE_CONCURRENCY] ?? env[ENV_ALIASES[ENV.MESSAGE_CONCURRENCY]],
      DEFAULT_MESSAGE_CONCURRENCY,
    ),
    policyLimits: jsonOr(ENV.POLICY_LIMITS, env[ENV.POLICY_LIMITS]),
    accountId: env[ENV.ACCOUNT_ID] || undefined,
    ownFunctionNames: [
      env[LAMBDA_RUNTIME_ENV.FUNCTION_NAME] ?? "",
      env[ENV.REDRIVE_FUNCTION_NAME] ?? "",
    ].filter((name) => name.trim() !== ""),
    lambdaTargets: parseList(env[ENV.LAMBDA_TARGETS]),
    circuitBreaker: breakerSettingsOf(env[ENV.CIRCUIT_BREAKER]),
    targets: jsonOr(ENV.TARGETS, env[ENV.TARGETS]),
    targetMetrics: parseList(env[ENV.TARGET_METRICS]),
  });
  if (!parsed.success) {
    throw new ConfigurationError(
      `invalid configuration: ${formatProblems(toProblems(parsed.error))}`,
    );
  }
  const {
    defaultPolicy: override,
    policyLimits: limitsOverride,
    circuitBreaker,
    legacySignatures,
    adaptiveLimits,
    ...rest
  } = parsed.data;
  const defaultPolicy = resolvePolicy(DEFAULT_POLICY, override);
  const policyLimits = completePolicyLimits(limitsOverride);
  // The construct refuses such a pair at synth time; this catches a hand-set environment.
  const conflicts = policyLimitConflicts(defaultPolicy, policyLimits);
  if (conflicts.length > 0) {
    const located = conflicts.map((p) => ({ ...p, path: `defaultPolicy.${p.path}` }));
    throw new ConfigurationError(`invalid configuration: ${formatProblems(located)}`);
  }
  return {
    ...rest,
    defaultPolicy,
    policyLimits,
    legacySignatures: legacySignatures === "on",
    adaptiveLimits: adaptiveLimits === "on",
    circuitBreaker:
      circuitBreaker === undefined ? undefined : { ...DEFAULT_BREAKER_SETTINGS, ...circuitBreaker },
  };
};

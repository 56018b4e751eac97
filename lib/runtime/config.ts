import * as z from "zod";
import { DEFAULT_TRACING_MODE, TRACING_MODES, type TracingMode } from "../contract/defaults.js";
import { ENV, ENV_ALIASES, LAMBDA_RUNTIME_ENV } from "../contract/environment.js";
import {
  SECONDS_PER_DAY,
  SETTING_NAMES,
  SETTINGS,
  type Setting,
  type SettingName,
  type SettingValues,
} from "../contract/settings.js";
import {
  type BreakerSettings,
  BreakerSettingsSchema,
  DEFAULT_BREAKER_SETTINGS,
} from "../core/circuit-breaker.js";
import { ConfigurationError, formatProblems, type InputProblem } from "../core/errors.js";
import { nearestName } from "../core/nearest-name.js";
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

/*
 * The scalar settings the functions read from their environment by the settings table's rules.
 * Not `tracing`, whose variable also takes `console` (local runs), nor `metricsNamespace`, which
 * Powertools reads.
 */
const FUNCTION_SETTINGS = [
  "allowedTargetHosts",
  "hopSeconds",
  "recordRetentionDays",
  "legacySignatures",
  "adaptiveLimits",
  "secretHeaders",
  "messageConcurrency",
  "lambdaTargets",
  "targetMetrics",
] as const satisfies readonly SettingName[];

/** The scalar settings' values in the functions' configuration. */
type FunctionSettings = Pick<SettingValues, (typeof FUNCTION_SETTINGS)[number]>;

/**
 * A scalar setting's variable (or its former name's) as its rule reads it: a number, `on`/`off`
 * as a switch, a comma-separated list; unset or blank, the setting's default.
 */
const settingFromEnv = (name: SettingName, env: NodeJS.ProcessEnv): unknown => {
  const entry: Setting<unknown> = SETTINGS[name];
  const alias = entry.deprecatedAlias?.env;
  const raw = (entry.env === undefined ? undefined : env[entry.env]) ?? (alias && env[alias]);
  if (raw === undefined || raw.trim() === "") return entry.default;
  const text = raw.trim();
  if (entry.unit === "switch") return text === "on" ? true : text === "off" ? false : text;
  if (entry.unit === "list") return parseList(text);
  return Number(text);
};

const ConfigSchema = z.object({
  tableName: z.string().min(1, "is required"),
  ingressQueueUrl: z.string().min(1, "is required"),
  internalQueueUrl: z.string().min(1, "is required"),
  deadLetterQueueUrl: z.string().min(1, "is required"),
  defaultPolicy: PolicyFieldsSchema.optional(),
  stuckAfterSeconds: z.int().min(1),
  signingSecret: z.string().min(1).optional(),
  tracing: z.enum(TRACING_MODES, { error: "must be off, on or console" }),
  policyLimits: PolicyLimitsSchema.optional(),
  accountId: z
    .string()
    .regex(/^\d{12}$/, "must be a 12-digit AWS account id")
    .optional(),
  ownFunctionNames: z.array(z.string().min(1)),
  circuitBreaker: BreakerSettingsSchema.optional(),
  targets: TargetsSettingsSchema.optional(),
  ...Object.fromEntries(FUNCTION_SETTINGS.map((name) => [name, SETTINGS[name].rule])),
});

/** Ricochet's runtime configuration, read once at start-up. */
export interface RicochetConfig extends FunctionSettings {
  readonly tableName: string;
  readonly ingressQueueUrl: string;
  readonly internalQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly defaultPolicy: RetryPolicy;
  /** How long past due a waiting event must be to count as stuck, in seconds. */
  readonly stuckAfterSeconds: number;
  readonly signingSecret?: string | undefined;
  /** Whether and where spans go (default off: the SDK is never loaded; lib/runtime/tracing.ts). */
  readonly tracing?: TracingMode | undefined;
  /** Bounds every event's policy is clamped to; the default policy lies within them. */
  readonly policyLimits: PolicyLimits;
  /** The deployment's account, when known (always, under the construct). */
  readonly accountId?: string | undefined;
  /** Names of Ricochet's own functions in this deployment: never a Lambda target. */
  readonly ownFunctionNames: readonly string[];
  /** The targets' circuit breakers' settings; undefined when they are off. */
  readonly circuitBreaker?: BreakerSettings | undefined;
  /** Per-target limits and breaker overrides; resolve with `targetSettingsResolver`. */
  readonly targets?: TargetsSettings | undefined;
}

/** A comma-separated variable's items, trimmed, empty ones dropped (an unset variable has none). */
export const parseList = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

const numberOr = (value: string | undefined, fallback: number): number =>
  value === undefined || value.trim() === "" ? fallback : Number(value);

/**
 * How long a finished record is kept, in days: RICOCHET_RECORD_RETENTION_DAYS, read by the one
 * rule {@link loadConfig} applies, for a process (the CLI) that needs only this setting.
 * @throws ConfigurationError when the variable is not a whole number of days from 1 to 3650.
 */
export const recordRetentionDaysFromEnv = (env: NodeJS.ProcessEnv = process.env): number => {
  const parsed = SETTINGS.recordRetentionDays.rule.safeParse(
    settingFromEnv("recordRetentionDays", env),
  );
  if (!parsed.success) {
    throw new ConfigurationError(
      `${ENV.RECORD_RETENTION_DAYS} ${formatProblems(toProblems(parsed.error))}`,
    );
  }
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

const VARIABLE_PREFIX = "RICOCHET_";

/** Variables Ricochet's own tools read (tests, local runs, the console's screenshots). */
const TOOLING_VARIABLES = [
  "RICOCHET_CHAOS_WORKER",
  "RICOCHET_CHROMIUM",
  "RICOCHET_CONSOLE_SCREENSHOT",
  "RICOCHET_LOCAL_AWS",
  "RICOCHET_MOTO_PYTHON",
  "RICOCHET_TEST_EMULATOR",
];

/** Every `RICOCHET_` variable Ricochet reads, former names included, without the prefix. */
const knownVariables = (): string[] =>
  [
    ...Object.values(ENV),
    ...Object.values(ENV_ALIASES),
    ...SETTING_NAMES.flatMap((name) => SETTINGS[name].deprecatedAlias?.env ?? []),
    ...TOOLING_VARIABLES,
  ].map((name) => name.slice(VARIABLE_PREFIX.length));

/**
 * A `RICOCHET_` variable Ricochet does not read but one edit or so from one it does
 * (`RICOCHET_TRACNG`): a typo that would leave the setting at its default without a word. One
 * nearer to no known name (a producer's own `RICOCHET_QUEUE_URL`) is none of Ricochet's business.
 */
const misspeltVariableProblems = (env: NodeJS.ProcessEnv): InputProblem[] => {
  const known = knownVariables();
  return Object.keys(env).flatMap((name) => {
    if (!name.startsWith(VARIABLE_PREFIX)) return [];
    const suffix = name.slice(VARIABLE_PREFIX.length);
    if (known.includes(suffix)) return [];
    const nearest = nearestName(suffix, known);
    return nearest === undefined
      ? []
      : [
          {
            path: name,
            message: `is not a variable Ricochet reads; did you mean ${VARIABLE_PREFIX}${nearest}?`,
          },
        ];
  });
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
    stuckAfterSeconds: numberOr(env[ENV.STUCK_AFTER_SECONDS], DEFAULT_STUCK_AFTER_SECONDS),
    signingSecret: env[ENV.SIGNING_SECRET] || undefined,
    tracing: env[ENV.TRACING]?.trim() || DEFAULT_TRACING_MODE,
    policyLimits: jsonOr(ENV.POLICY_LIMITS, env[ENV.POLICY_LIMITS]),
    accountId: env[ENV.ACCOUNT_ID] || undefined,
    ownFunctionNames: [
      env[LAMBDA_RUNTIME_ENV.FUNCTION_NAME] ?? "",
      env[ENV.OPERATOR_FUNCTION_NAME] ?? env[ENV_ALIASES[ENV.OPERATOR_FUNCTION_NAME]] ?? "",
    ].filter((name) => name.trim() !== ""),
    circuitBreaker: breakerSettingsOf(env[ENV.CIRCUIT_BREAKER]),
    targets: jsonOr(ENV.TARGETS, env[ENV.TARGETS]),
    ...Object.fromEntries(FUNCTION_SETTINGS.map((name) => [name, settingFromEnv(name, env)])),
  });
  const problems = [
    ...(parsed.success ? [] : toProblems(parsed.error)),
    ...misspeltVariableProblems(env),
  ];
  if (!parsed.success || problems.length > 0) {
    throw new ConfigurationError(`invalid configuration: ${formatProblems(problems)}`);
  }
  const {
    defaultPolicy: override,
    policyLimits: limitsOverride,
    circuitBreaker,
    ...rest
  } = parsed.data as typeof parsed.data & FunctionSettings;
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
    circuitBreaker:
      circuitBreaker === undefined ? undefined : { ...DEFAULT_BREAKER_SETTINGS, ...circuitBreaker },
  };
};

import * as z from "zod";
import {
  MAX_LAMBDA_TIMEOUT_SECONDS,
  MAX_SQS_DELAY_SECONDS,
  MAX_SQS_RETENTION_SECONDS,
  MIN_SQS_RETENTION_SECONDS,
} from "./aws-limits.js";
import { ENV } from "./environment.js";
import { MAX_METRIC_TARGETS } from "./metric-names.js";

/*
 * The deployment's scalar settings, one entry per knob: the construct's prop, the `cdk.json`
 * key, the environment variable the construct writes (when the functions read it), the rule,
 * the default, the unit and one line of documentation. The construct's defaults and range
 * checks, the `ricochet` context's reader, the environment the construct writes, the functions'
 * `loadConfig` and the README's settings table are all derived from here (issue #33), so a knob
 * is added, renamed or re-ranged in one place. The settings with a shape of their own (the
 * policy, its limits, the breakers, the per-target settings) are checked by their schemas in
 * lib/core and listed in {@link STRUCTURED_SETTINGS}.
 */

/** What a setting's number counts, or what kind of value it is; shown in the README. */
type SettingUnit =
  | "seconds"
  | "days"
  | "MiB"
  | "messages"
  | "invocations"
  | "receives"
  | "switch"
  | "list"
  | "text";

/** How a duration prop (a CDK `Duration`) is spelled in `cdk.json`. */
type ContextDurationUnit = "seconds" | "days";

/** One knob of the deployment. Durations are held in seconds whatever their spelling. */
export interface Setting<T> {
  /** One line for the README: what the setting decides. */
  readonly doc: string;
  readonly unit: SettingUnit;
  readonly default: T;
  /** The rule every value must keep (a duration's, in whole seconds). */
  readonly rule: z.ZodType<T>;
  /** The key under the `ricochet` context in `cdk.json`. */
  readonly contextKey: string;
  /** Set when the prop is a CDK `Duration`: how `cdk.json` spells it. */
  readonly duration?: ContextDurationUnit;
  /** The variable the construct writes for the functions, when they read the setting. */
  readonly env?: string;
  /** A former name, still accepted, and the variable it was written to. */
  readonly deprecatedAlias?: { readonly prop: string; readonly env: string };
}

/** The seconds in a day: a setting in days is held in seconds. */
export const SECONDS_PER_DAY = 86_400;

/** A whole number in a closed range, with messages that name the range. */
const wholeNumber = (min: number, max: number) =>
  z
    .number()
    .int("must be a whole number")
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

/** A comma separates list entries in the environment variables, so no entry may hold one. */
const listEntry = z
  .string()
  .min(1, "must not be empty")
  .refine((value) => !value.includes(","), "must not contain a comma");

const headerName = listEntry.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "is not a valid header name");

const LAMBDA_ARN =
  /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9$_-]+)?$/;

/*
 * The marker the CDK puts in a string whose value only deployment knows (`Token.isUnresolved`
 * looks for the same): such an ARN is checked by CloudFormation, not here. Spelt out because
 * lib/contract may not import aws-cdk-lib.
 */
const CDK_TOKEN_MARKER = "${Token[";

const lambdaArn = z
  .string()
  .refine(
    (arn) => arn.includes(CDK_TOKEN_MARKER) || LAMBDA_ARN.test(arn),
    "is not a Lambda function ARN",
  );

/*
 * A switch: a boolean prop or `cdk.json` value (their types are checked before the rule), written
 * `on` or `off` for the functions, whose only way to get it wrong is the variable's text.
 */
const onOrOff = z.boolean({ error: "must be on or off" });

/** The longest a finished record may be kept: ten years. */
const MAX_RECORD_RETENTION_DAYS = 3650;

const RECORD_RETENTION_RULE = `must be a whole number of days from 1 to ${MAX_RECORD_RETENTION_DAYS}`;

const list = <T extends string>(entry: z.ZodType<T>) => z.array(entry).readonly();

/** A setting the construct takes as a CDK `Duration`. */
export interface DurationSetting extends Setting<number> {
  readonly duration: ContextDurationUnit;
}

/** Types each entry by its own rule (a table of `Setting<unknown>` would lose them). */
const setting = <T>(entry: Setting<T>): Setting<T> => entry;

const durationSetting = (entry: DurationSetting): DurationSetting => entry;

/** The scalar settings, in the order the README lists them. */
export const SETTINGS = {
  batchSize: setting({
    doc: "messages handed to one orchestrator invocation; above 10, SQS requires a batching window",
    unit: "messages",
    default: 10,
    rule: wholeNumber(1, 10_000),
    contextKey: "batchSize",
  }),
  maxBatchingWindow: durationSetting({
    doc: "how long the ingress queue's event source gathers messages before invoking with a partial batch",
    unit: "seconds",
    // None, as Lambda's own default: a 1 s window put Ricochet's first attempts about a second
    // behind Powertools' in the noisy-neighbour bench (p50 ~1 s against 0.2 s at 20 events/s).
    default: 0,
    rule: wholeNumber(0, 300),
    contextKey: "maxBatchingWindowSeconds",
    duration: "seconds",
  }),
  maxConcurrency: setting({
    doc: "most orchestrator invocations the event source runs at once (Lambda requires at least 2)",
    unit: "invocations",
    default: 10,
    rule: wholeNumber(2, 1000),
    contextKey: "maxConcurrency",
  }),
  functionTimeout: durationSetting({
    doc: "the orchestrator's timeout; the ingress queue's visibility timeout is six times this",
    unit: "seconds",
    default: 60,
    rule: wholeNumber(1, MAX_LAMBDA_TIMEOUT_SECONDS),
    contextKey: "functionTimeoutSeconds",
    duration: "seconds",
  }),
  memorySize: setting({
    doc: "the orchestrator's memory",
    unit: "MiB",
    default: 512,
    rule: wholeNumber(128, 10_240),
    contextKey: "memorySize",
  }),
  ingressRetention: durationSetting({
    doc: "how long a message may wait in the ingress queue",
    unit: "seconds",
    default: 4 * SECONDS_PER_DAY,
    rule: wholeNumber(MIN_SQS_RETENTION_SECONDS, MAX_SQS_RETENTION_SECONDS),
    contextKey: "ingressRetentionDays",
    duration: "days",
  }),
  deadLetterRetention: durationSetting({
    doc: "how long a dead-lettered message is kept; must exceed the ingress retention",
    unit: "seconds",
    default: 14 * SECONDS_PER_DAY,
    rule: wholeNumber(MIN_SQS_RETENTION_SECONDS, MAX_SQS_RETENTION_SECONDS),
    contextKey: "deadLetterRetentionDays",
    duration: "days",
  }),
  maxReceiveCount: setting({
    doc: "receives after which SQS itself dead-letters a message (the net for crashes, not the retry budget)",
    unit: "receives",
    default: 10,
    rule: wholeNumber(1, 1000),
    contextKey: "maxReceiveCount",
  }),
  recordRetentionDays: setting({
    doc: "how long a finished attempt record is kept before DynamoDB's TTL removes it",
    unit: "days",
    default: 30,
    rule: z
      .int({ error: RECORD_RETENTION_RULE })
      .min(1, { error: RECORD_RETENTION_RULE })
      .max(MAX_RECORD_RETENTION_DAYS, { error: RECORD_RETENTION_RULE }),
    contextKey: "recordRetentionDays",
    env: ENV.RECORD_RETENTION_DAYS,
  }),
  deadLetterAlarmThreshold: setting({
    doc: "visible dead-letter messages at which the dead-letter alarm fires",
    unit: "messages",
    default: 1,
    rule: wholeNumber(1, 1_000_000),
    contextKey: "deadLetterAlarmThreshold",
  }),
  oldestMessageAlarmAge: durationSetting({
    doc: "age of the oldest ingress message at which the backlog alarm fires",
    unit: "seconds",
    default: 15 * 60,
    rule: wholeNumber(60, MAX_SQS_RETENTION_SECONDS),
    contextKey: "oldestMessageAlarmAgeSeconds",
    duration: "seconds",
  }),
  breakerOpenAlarmAge: durationSetting({
    doc: "how long a target's breaker may stay open before the breaker alarm fires (breakers on only)",
    unit: "seconds",
    default: 15 * 60,
    rule: wholeNumber(60, SECONDS_PER_DAY),
    contextKey: "breakerOpenAlarmAgeSeconds",
    duration: "seconds",
  }),
  shortRetryWindowThreshold: durationSetting({
    doc: "synth warns when the default policy's whole retry window is shorter than this; 0 never warns",
    unit: "seconds",
    default: 60,
    rule: wholeNumber(0, MAX_SQS_RETENTION_SECONDS),
    contextKey: "shortRetryWindowThresholdSeconds",
    duration: "seconds",
  }),
  allowedTargetHosts: setting<readonly string[]>({
    doc: "hosts or CIDR ranges HTTP targets may reach despite the internal-address refusal",
    unit: "list",
    default: [],
    rule: list(listEntry),
    contextKey: "allowedTargetHosts",
    env: ENV.ALLOWED_TARGET_HOSTS,
  }),
  legacySignatures: setting({
    doc: "also send the legacy `Ricochet-Signature` and `Ricochet-Timestamp` headers",
    unit: "switch",
    default: true,
    rule: onOrOff,
    contextKey: "legacySignatures",
    env: ENV.LEGACY_SIGNATURES,
  }),
  adaptiveLimits: setting({
    doc: "hold each target to the call rate its 429s, 503s, `Retry-After` and latency allow",
    unit: "switch",
    default: false,
    rule: onOrOff,
    contextKey: "adaptiveLimits",
    env: ENV.ADAPTIVE_LIMITS,
  }),
  tracing: setting({
    doc: "OpenTelemetry spans over OTLP/HTTP (the variable also takes `console`: spans printed)",
    unit: "switch",
    default: false,
    rule: onOrOff,
    contextKey: "tracing",
    env: ENV.TRACING,
  }),
  secretHeaders: setting<readonly string[]>({
    doc: "extra header names never logged or recorded",
    unit: "list",
    default: [],
    rule: list(headerName),
    contextKey: "secretHeaders",
    env: ENV.SECRET_HEADERS,
  }),
  hopSeconds: setting({
    doc: "longest single SQS delay used to hop towards a later retry time",
    unit: "seconds",
    default: MAX_SQS_DELAY_SECONDS,
    rule: wholeNumber(1, MAX_SQS_DELAY_SECONDS),
    contextKey: "hopSeconds",
    env: ENV.HOP_SECONDS,
  }),
  messageConcurrency: setting({
    doc: "messages of one batch attempted at once inside one invocation",
    unit: "messages",
    default: 10,
    rule: wholeNumber(1, 100),
    contextKey: "messageConcurrency",
    env: ENV.MESSAGE_CONCURRENCY,
    deprecatedAlias: { prop: "recordConcurrency", env: "RICOCHET_RECORD_CONCURRENCY" },
  }),
  lambdaTargets: setting<readonly string[]>({
    doc: "ARNs of the Lambda functions events may target; none listed, `lambda` targets are rejected",
    unit: "list",
    default: [],
    rule: list(lambdaArn),
    contextKey: "lambdaTargets",
    env: ENV.LAMBDA_TARGETS,
  }),
  metricsNamespace: setting({
    doc: "CloudWatch namespace of the orchestrator's metrics",
    unit: "text",
    default: "Ricochet",
    rule: z.string().regex(/^[^:]{1,255}$/, "must be 1 to 255 characters, no colon"),
    contextKey: "metricsNamespace",
    env: "POWERTOOLS_METRICS_NAMESPACE",
  }),
  targetMetrics: setting<readonly string[]>({
    doc: `target keys whose outcomes get their own \`target\` metric dimension (at most ${MAX_METRIC_TARGETS})`,
    unit: "list",
    default: [],
    rule: z.array(z.string().min(1).max(256)).max(MAX_METRIC_TARGETS).readonly(),
    contextKey: "targetMetrics",
    env: ENV.TARGET_METRICS,
  }),
} as const;

/** A scalar setting's name: its prop's. */
export type SettingName = keyof typeof SETTINGS;

/** Each scalar setting's value type (a duration's in seconds). */
export type SettingValues = { readonly [K in SettingName]: (typeof SETTINGS)[K]["default"] };

/** The settings' names, in the table's order. */
export const SETTING_NAMES = Object.keys(SETTINGS) as readonly SettingName[];

/**
 * The settings with a shape of their own: the construct, the context and the functions read
 * them whole and check them with the schema named here.
 */
export const STRUCTURED_SETTINGS = {
  defaultPolicy: {
    doc: "the deployment's retry policy, over the built-in one (`PolicyFieldsSchema`, lib/core/policy.ts)",
    contextKey: "defaultPolicy",
    env: ENV.DEFAULT_POLICY,
  },
  policyLimits: {
    doc: "bounds every event's policy is clamped to: `{ maxAttempts: 25, minBaseDelaySeconds: 1 }` by default (lib/core/policy-limits.ts)",
    contextKey: "policyLimits",
    env: ENV.POLICY_LIMITS,
  },
  circuitBreaker: {
    doc: "per-target circuit breakers: off by default, `true` for the defaults, or overrides of them (lib/core/circuit-breaker.ts)",
    contextKey: "circuitBreaker",
    env: ENV.CIRCUIT_BREAKER,
  },
  targets: {
    doc: "per-target limits and breaker settings: `{ defaults?, overrides?: { <target key>: … }, groups? }` (lib/core/target-settings.ts)",
    contextKey: "targets",
    env: ENV.TARGETS,
  },
} as const;

/** How `cdk.json` spells a setting's default: a duration in its context unit. */
export const contextDefault = (name: SettingName): unknown => {
  const entry: Setting<unknown> = SETTINGS[name];
  if (entry.duration === "days") return (entry.default as number) / SECONDS_PER_DAY;
  return entry.default;
};

/** A setting's value as the construct writes it into the functions' environment. */
export const envText = (value: unknown): string => {
  if (typeof value === "boolean") return value ? "on" : "off";
  if (Array.isArray(value)) return value.join(",");
  return String(value);
};

import { Duration } from "aws-cdk-lib";
import * as z from "zod";
import { DEFAULT_STACK_NAME } from "../contract/stack-outputs.js";
import { ConfigurationError, formatProblems } from "../core/errors.js";
import { withNearestNames } from "../core/nearest-name.js";
import { PolicyFieldsSchema } from "../core/policy.js";
import { toProblems } from "../core/zod-problems.js";
import type { RetryOrchestratorProps } from "./retry-orchestrator-props.js";

/** The CDK context key (in `cdk.json` or `-c ricochet=...`) holding the deployment's settings. */
export const CONTEXT_KEY = "ricochet";

/*
 * Context is JSON, so durations are given in seconds or days. Only shapes are checked here; the
 * construct checks values and their conflicts, and reports them all at once.
 */
const ContextSchema = z.strictObject({
  stackName: z.string().min(1).default(DEFAULT_STACK_NAME),
  defaultPolicy: PolicyFieldsSchema.optional(),
  policyLimits: z
    .strictObject({
      maxAttempts: z.number().optional(),
      minBaseDelaySeconds: z.number().optional(),
    })
    .optional(),
  batchSize: z.number().optional(),
  maxBatchingWindowSeconds: z.number().optional(),
  maxConcurrency: z.number().optional(),
  functionTimeoutSeconds: z.number().optional(),
  memorySize: z.number().optional(),
  ingressRetentionDays: z.number().optional(),
  deadLetterRetentionDays: z.number().optional(),
  maxReceiveCount: z.number().optional(),
  recordRetentionDays: z.number().optional(),
  deadLetterAlarmThreshold: z.number().optional(),
  oldestMessageAlarmAgeSeconds: z.number().optional(),
  breakerOpenAlarmAgeSeconds: z.number().optional(),
  shortRetryWindowThresholdSeconds: z.number().optional(),
  targetMetrics: z.array(z.string()).optional(),
  allowedTargetHosts: z.array(z.string()).optional(),
  secretHeaders: z.array(z.string()).optional(),
  /** Also send the legacy signature headers (default true). */
  legacySignatures: z.boolean().optional(),
  /** Each target held to the pace its calls say it can take (default false). */
  adaptiveLimits: z.boolean().optional(),
  /** OpenTelemetry traces from the orchestrator (default false). */
  tracing: z.boolean().optional(),
  hopSeconds: z.number().optional(),
  messageConcurrency: z.number().optional(),
  /** The former name of `messageConcurrency`, still read. */
  recordConcurrency: z.number().optional(),
  lambdaTargets: z.array(z.string()).optional(),
  metricsNamespace: z.string().optional(),
  /** `true`, `false`, or overrides of the breakers' defaults (checked by the construct). */
  circuitBreaker: z.union([z.boolean(), z.record(z.string(), z.number())]).optional(),
  /** `{ defaults?, overrides?: { <target key>: … } }` of numbers (checked by the construct). */
  targets: z
    .strictObject({
      defaults: z.record(z.string(), z.number()).optional(),
      overrides: z.record(z.string(), z.record(z.string(), z.number())).optional(),
    })
    .optional(),
});

/** What the app builds from its context. */
export interface RicochetAppSettings {
  readonly stackName: string;
  readonly orchestrator: RetryOrchestratorProps;
}

const maybe = <T, R>(value: T | undefined, map: (value: T) => R): R | undefined =>
  value === undefined ? undefined : map(value);

/*
 * `cdk.json` gives the context as an object, but `cdk deploy -c 'ricochet={...}'` hands the app a
 * string: the CDK CLI does not parse command-line context values.
 */
const contextObject = (context: unknown): unknown => {
  if (typeof context !== "string") return context ?? {};
  try {
    return JSON.parse(context);
  } catch {
    throw new ConfigurationError(`the "${CONTEXT_KEY}" context given as a string is not JSON`);
  }
};

/**
 * Reads the app's settings from the `ricochet` context value (absent means all defaults), an
 * object from `cdk.json` or a JSON string from `-c ricochet=...`.
 * @throws ConfigurationError naming every malformed field.
 */
export const readAppSettings = (context: unknown): RicochetAppSettings => {
  const parsed = ContextSchema.safeParse(contextObject(context));
  if (!parsed.success) {
    const problems = withNearestNames(toProblems(parsed.error), Object.keys(ContextSchema.shape));
    throw new ConfigurationError(`invalid "${CONTEXT_KEY}" context: ${formatProblems(problems)}`);
  }
  const c = parsed.data;
  return {
    stackName: c.stackName,
    orchestrator: {
      defaultPolicy: c.defaultPolicy,
      policyLimits: c.policyLimits,
      batchSize: c.batchSize,
      maxBatchingWindow: maybe(c.maxBatchingWindowSeconds, Duration.seconds),
      maxConcurrency: c.maxConcurrency,
      functionTimeout: maybe(c.functionTimeoutSeconds, Duration.seconds),
      memorySize: c.memorySize,
      ingressRetention: maybe(c.ingressRetentionDays, Duration.days),
      deadLetterRetention: maybe(c.deadLetterRetentionDays, Duration.days),
      maxReceiveCount: c.maxReceiveCount,
      recordRetentionDays: c.recordRetentionDays,
      deadLetterAlarmThreshold: c.deadLetterAlarmThreshold,
      oldestMessageAlarmAge: maybe(c.oldestMessageAlarmAgeSeconds, Duration.seconds),
      breakerOpenAlarmAge: maybe(c.breakerOpenAlarmAgeSeconds, Duration.seconds),
      shortRetryWindowThreshold: maybe(c.shortRetryWindowThresholdSeconds, Duration.seconds),
      targetMetrics: c.targetMetrics,
      allowedTargetHosts: c.allowedTargetHosts,
      secretHeaders: c.secretHeaders,
      legacySignatures: c.legacySignatures,
      adaptiveLimits: c.adaptiveLimits,
      tracing: c.tracing,
      hopSeconds: c.hopSeconds,
      messageConcurrency: c.messageConcurrency,
      recordConcurrency: c.recordConcurrency,
      lambdaTargets: c.lambdaTargets,
      metricsNamespace: c.metricsNamespace,
      circuitBreaker: c.circuitBreaker,
      targets: c.targets,
    },
  };
};

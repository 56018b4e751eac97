import { Duration, RemovalPolicy } from "aws-cdk-lib";
import type { IKey } from "aws-cdk-lib/aws-kms";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import type { IStringParameter } from "aws-cdk-lib/aws-ssm";
import * as z from "zod";
import {
  contextDefault,
  type DurationSetting,
  envText,
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
  type SettingValues,
} from "../contract/settings.js";
import {
  type BreakerSettings,
  BreakerSettingsSchema,
  DEFAULT_BREAKER_SETTINGS,
} from "../core/circuit-breaker.js";
import {
  ConfigurationError,
  formatProblems,
  type InputProblem,
  InvalidPolicyError,
} from "../core/errors.js";
import { unknownNameProblems } from "../core/nearest-name.js";
import { DEFAULT_POLICY, type PolicyOverride, resolvePolicy } from "../core/policy.js";
import {
  completePolicyLimits,
  DEFAULT_POLICY_LIMITS,
  type PolicyLimits,
  PolicyLimitsSchema,
  policyLimitConflicts,
} from "../core/policy-limits.js";
import { type TargetsSettings, TargetsSettingsSchema } from "../core/target-settings.js";
import { toProblems } from "../core/zod-problems.js";
import { overrideProblems, type ResourceOverrides } from "./resource-overrides.js";

/**
 * How the queues (and, with a key, the table) are encrypted at rest. Both choices encrypt; the
 * KMS choice is for accounts whose policy requires a customer-managed key.
 */
export class OrchestratorEncryption {
  /** SQS-managed server-side encryption (SSE-SQS) for the queues; AWS-owned key for the table. */
  public static sqsManaged(): OrchestratorEncryption {
    return new OrchestratorEncryption(undefined);
  }

  /** One customer-managed KMS key for both queues and the table. */
  public static kms(key: IKey): OrchestratorEncryption {
    return new OrchestratorEncryption(key);
  }

  private constructor(
    /** The customer-managed key, when there is one. */
    public readonly key: IKey | undefined,
  ) {}
}

/** Configuration of a `RetryOrchestrator` construct. Every field is optional. */
export interface RetryOrchestratorProps extends ResourceOverrides {
  /**
   * The deployment's retry policy, applied over Ricochet's built-in default; an event's own
   * `policy` overrides it in turn. Validated at synth time.
   * @default - the built-in policy (8 attempts, 5 s base, ×2, 900 s cap, full jitter)
   */
  readonly defaultPolicy?: PolicyOverride;
  /**
   * Bounds on every event's effective policy: an event's `policy` override asking for more
   * attempts or a shorter base delay is clamped to them (the event still runs, and its record says
   * what was changed). `defaultPolicy` must lie within them.
   * @default - `{ maxAttempts: 25, minBaseDelaySeconds: 1 }` (each field defaults on its own)
   */
  readonly policyLimits?: {
    /** Most attempts an event may ask for, the first included (1..100). @default 25 */
    readonly maxAttempts?: number;
    /** Least `baseDelaySeconds` an event may ask for. @default 1 */
    readonly minBaseDelaySeconds?: number;
  };
  /**
   * Synth warns (`ricochet:shortRetryWindow`) when `defaultPolicy`'s whole retry window, the sum
   * of its retries' ceilings, is shorter than this: a target down for longer dead-letters every
   * event sent to it meanwhile (Celery's `max_retries=3, retry_backoff=1` waits 7 s in all).
   * Whole seconds, up to 14 days; `Duration.seconds(0)` never warns. The warning can also be
   * acknowledged: `Annotations.of(orchestrator).acknowledgeWarning("ricochet:shortRetryWindow")`.
   * @default Duration.minutes(1)
   */
  readonly shortRetryWindowThreshold?: Duration;
  /**
   * Messages handed to one orchestrator invocation. Above 10, SQS requires a batching window.
   * @default 10
   */
  readonly batchSize?: number;
  /**
   * How long the ingress queue's event source gathers messages before invoking with a partial
   * batch: fewer, fuller invocations at low traffic, for up to this much latency on every first
   * attempt. The internal queue's source (retries, hops) gathers none while `batchSize` is at
   * most 10 ({@link internalBatchingWindow}): a retry is due when its policy says. Above 10
   * messages a batch, Lambda requires a window of at least 1 s.
   * @default Duration.seconds(0)
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Most orchestrator invocations the event source runs at once (Lambda requires at least 2).
   * @default 10
   */
  readonly maxConcurrency?: number;
  /**
   * Orchestrator timeout; the ingress queue's visibility timeout is six times this.
   * @default Duration.seconds(60)
   */
  readonly functionTimeout?: Duration;
  /**
   * Orchestrator memory in MiB.
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * How long a message may wait in the ingress queue.
   * @default Duration.days(4)
   */
  readonly ingressRetention?: Duration;
  /**
   * How long a dead-lettered message is kept; must exceed `ingressRetention` so a message moved
   * by SQS's own redrive (which keeps the original enqueue time) is not dropped on arrival.
   * @default Duration.days(14)
   */
  readonly deadLetterRetention?: Duration;
  /**
   * Receives after which SQS itself moves a message to the dead-letter queue: the safety net for
   * messages that crash the function, not the retry budget (the orchestrator dead-letters
   * exhausted events itself).
   * @default 10
   */
  readonly maxReceiveCount?: number;
  /**
   * Days a finished attempt record is kept before DynamoDB's TTL removes it.
   * @default 30
   */
  readonly recordRetentionDays?: number;
  /**
   * Visible dead-letter messages at which the dead-letter alarm fires.
   * @default 1
   */
  readonly deadLetterAlarmThreshold?: number;
  /**
   * Age of the oldest ingress message at which the backlog alarm fires.
   * @default Duration.minutes(15)
   */
  readonly oldestMessageAlarmAge?: Duration;
  /**
   * How long a target may stay failing, its breaker open (or probing), before the breaker alarm
   * fires. The alarm exists only with `circuitBreaker` on; it watches the age of the oldest
   * outage among the targets whose events are being turned away, with no per-target dimension.
   * @default Duration.minutes(15)
   */
  readonly breakerOpenAlarmAge?: Duration;
  /**
   * Hosts or CIDR ranges HTTP targets may reach despite the default refusals (private ranges,
   * link-local, loopback).
   * @default - none
   */
  readonly allowedTargetHosts?: readonly string[];
  /**
   * HMAC key used to sign outgoing HTTP requests; the orchestrator is granted read on it.
   * @default - requests are not signed
   */
  readonly signingSecret?: ISecret | IStringParameter;
  /**
   * Also send the legacy `Ricochet-Timestamp` / `Ricochet-Signature` headers beside the Standard
   * Webhooks ones, for receivers that have not moved yet (README, "Receiving"). Turn off once
   * every receiver verifies `webhook-signature`; the default becomes false in the next major.
   * @default true
   */
  readonly legacySignatures?: boolean;
  /**
   * Hold each target to the pace its calls say it can take: the call rate is cut when the target
   * answers 429 or 503, a Lambda target is throttled, a call it received times out, or its
   * latency rises well above its own baseline, paused by a long `Retry-After`, and won back by
   * probing while it answers well. The declared `targets` limits stay ceilings. Calls held back
   * are deferred, spending no attempt. Learned per function instance, in memory: it costs no
   * I/O (README, "Adaptive limits").
   * @default false
   */
  readonly adaptiveLimits?: boolean;
  /**
   * OpenTelemetry traces from the orchestrator: a span per message with children for its steps,
   * exported over OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT` (an ADOT collector layer or any
   * collector). Off, the SDK is never loaded. A producer's trace context is carried to targets
   * either way.
   * @default false
   */
  readonly tracing?: boolean;
  /**
   * Extra header names treated as secrets: never logged, never recorded.
   * @default - none beyond the built-in list
   */
  readonly secretHeaders?: readonly string[];
  /**
   * Longest single SQS delay used to hop towards a later retry time (1..900).
   * @default 900
   */
  readonly hopSeconds?: number;
  /**
   * Messages of one batch attempted concurrently inside one invocation.
   * @default 10
   */
  readonly messageConcurrency?: number;
  /**
   * @deprecated The former name of {@link messageConcurrency}; still honoured. Giving both with
   * different values is refused.
   */
  readonly recordConcurrency?: number;
  /**
   * ARNs of the Lambda functions events may target. The orchestrator may invoke these and no
   * others; with none listed, `lambda` targets fail with an access error and are rejected.
   * @default - none
   */
  readonly lambdaTargets?: readonly string[];
  /**
   * Encryption at rest of the queues and the table.
   * @default OrchestratorEncryption.sqsManaged()
   */
  readonly encryption?: OrchestratorEncryption;
  /**
   * What happens to the queues and the table when the construct is removed.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * CloudWatch namespace of the orchestrator's EMF metrics.
   * @default "Ricochet"
   */
  readonly metricsNamespace?: string;
  /**
   * Circuit breakers per target (an HTTP origin, a Lambda function, or an envelope's
   * `target.group`): while a target's breaker is open, its events are deferred, not attempted,
   * and spend no attempt. `true` turns them on with the defaults; an object overrides some of
   * them (times in milliseconds; see `lib/core/circuit-breaker.ts` and docs/design-notes.md,
   * "Targets and circuit breakers").
   * Opt-in: a breaker changes what a failing partner's events do (they wait instead of spending
   * their attempts), and a flaky target's breaker opens at half its calls failing, which a team
   * should choose knowing its partners. The noisy-neighbour benchmark (BENCHMARKS.md) is the case
   * for turning them on.
   * @default false
   */
  readonly circuitBreaker?: boolean | CircuitBreakerProps;
  /**
   * What each target (see `circuitBreaker`) is held to: concurrency and rate limits, and breaker
   * settings, as defaults for all targets plus overrides per target key (as `ricochet` shows
   * keys: `http:https://api.example.com:443`, `lambda:orders`, `group:tenant-42`). Limits apply
   * whether or not the breakers are on; a call over a limit is deferred, spending no attempt.
   * @default - no limits; every target's breaker on the `circuitBreaker` settings
   */
  readonly targets?: TargetsProps;
  /**
   * Target keys (`http:https://api.example.com:443`, `lambda:name`, `group:name`; see
   * `ricochet targets`) whose outcomes get metrics of their own, under the `target` dimension;
   * every other target is counted under `target=other`. At most 20: each named key is a set of
   * custom metrics CloudWatch bills for, so the dimension is bounded by configuration, never by
   * traffic. With none named, no per-target metric is emitted.
   * @default - none
   */
  readonly targetMetrics?: readonly string[];
}

/** Settings of one target, or of all of them as defaults; each field defaults on its own. */
export interface TargetSettingsProps extends CircuitBreakerProps {
  /**
   * Calls in flight at once to the target, across all instances. Exceeded only after a
   * call's instance stopped without giving its slot back, until the slot's lease lapses.
   * @default - unlimited
   */
  readonly maxConcurrentCalls?: number;
  /**
   * Calls started per second to the target, across all instances (a whole number): at most this
   * many are admitted per aligned second, up to twice it in a sliding one. Also caps the
   * breaker's `releasePerSecond`.
   * @default - unlimited
   */
  readonly maxCallsPerSecond?: number;
}

/** Per-target settings: defaults for every target, and overrides per target key. */
export interface TargetsProps {
  /** Applied to every target, over `circuitBreaker`. @default - none */
  readonly defaults?: TargetSettingsProps;
  /** Per target key, over `defaults`. @default - none */
  readonly overrides?: Readonly<Record<string, TargetSettingsProps>>;
  /**
   * Targets that share one breaker and one set of limits (a tenant's several origins or
   * functions), by group name, each listing target keys (`http:https://a.example:443`,
   * `lambda:name`); a target belongs to at most one group. A member's events answer to
   * `group:<name>` whatever their envelope says, and an envelope's `target.group` is honoured
   * only where it names its target's declared group: a producer cannot put its events under
   * another tenant's breaker or limits, nor escape its own with a fresh group name.
   * @default - none: every origin and function is its own target
   */
  readonly groups?: Readonly<Record<string, readonly string[]>>;
}

/** Overrides of the circuit breakers' defaults; each field defaults on its own. */
export interface CircuitBreakerProps {
  /** Share of failed calls (0 < x ≤ 1) at which a breaker opens. @default 0.5 */
  readonly failureRateThreshold?: number;
  /** Calls the window must hold before its failure rate counts. @default 10 */
  readonly minimumCalls?: number;
  /** Length of the counting window, in ms. @default 60000 */
  readonly windowMs?: number;
  /** How long a breaker first stays open, in ms; doubled at each reopening. @default 30000 */
  readonly openMs?: number;
  /** Longest a breaker stays open, in ms. @default 600000 */
  readonly maxOpenMs?: number;
  /** Probe calls let through at once while half-open. @default 1 */
  readonly halfOpenProbes?: number;
  /** How long a call turned away during a probe waits, in ms. @default 5000 */
  readonly probeWaitMs?: number;
  /** After how long an unanswered probe is taken for lost, in ms. @default 310000 */
  readonly probeTimeoutMs?: number;
  /** Deferred events one instance releases per second when a breaker may call again. @default 10 */
  readonly releasePerSecond?: number;
  /**
   * Shortest call timeout, in ms, whose expiry counts as the target's failure: a producer's
   * shorter timeout to a slower partner is its own choice and must not open the partner's
   * breaker for everyone. Raise it to the latency a healthy partner of yours may take.
   * @default 1000
   */
  readonly minCountedTimeoutMs?: number;
}

/** Props with every default applied and every value checked. */
export interface ResolvedRetryOrchestratorProps
  extends Required<
    Omit<
      RetryOrchestratorProps,
      | "defaultPolicy"
      | "signingSecret"
      | "policyLimits"
      | "circuitBreaker"
      | "targets"
      | "recordConcurrency"
      | keyof ResourceOverrides
    >
  > {
  readonly defaultPolicy: PolicyOverride | undefined;
  /** The breakers' settings; undefined when they are off. */
  readonly circuitBreaker: BreakerSettings | undefined;
  /** The per-target settings as given (checked); undefined when none are. */
  readonly targets: TargetsSettings | undefined;
  readonly policyLimits: PolicyLimits;
  readonly signingSecret: ISecret | IStringParameter | undefined;
}

/**
 * The scalar settings as the construct takes them (a CDK `Duration` where the settings table
 * says so); `test/infra/retry-orchestrator-props.settings.test.ts` holds the props type to it.
 */
export type SettingProps = {
  readonly [K in SettingName]: (typeof SETTINGS)[K] extends DurationSetting
    ? Duration
    : SettingValues[K];
};

/**
 * A scalar setting's value as `cdk.json` spells it, as the construct's prop: a `Duration` (from
 * seconds or days, as the settings table says) for a duration setting, else the value itself.
 * The context's reader and the defaults below both convert through here.
 */
export const propFromContext = (name: SettingName, value: unknown): unknown => {
  const { duration } = SETTINGS[name];
  if (value === undefined || duration === undefined) return value;
  return duration === "days" ? Duration.days(value as number) : Duration.seconds(value as number);
};

const propDefault = (name: SettingName): SettingProps[SettingName] =>
  propFromContext(name, contextDefault(name)) as SettingProps[SettingName];

/** The defaults, in one place for the docs and the tests; the scalar ones from `SETTINGS`. */
export const RETRY_ORCHESTRATOR_DEFAULTS = {
  ...(Object.fromEntries(SETTING_NAMES.map((name) => [name, propDefault(name)])) as SettingProps),
  policyLimits: DEFAULT_POLICY_LIMITS,
  removalPolicy: RemovalPolicy.RETAIN,
} as const;

/** The scalar settings the functions read, as the variables the construct writes for them. */
export const settingsEnvironment = (settings: SettingProps): Record<string, string> => {
  const values = inSeconds(settings);
  return Object.fromEntries(
    SETTING_NAMES.flatMap((name) => {
      const { env } = SETTINGS[name];
      return env === undefined ? [] : [[env, envText(values[name])] as const];
    }),
  );
};

/**
 * The internal queue's batching window: none, unless the batch size needs one (above 10 Lambda
 * requires a window of at least 1 s; then the configured one). A window there held every retry
 * back until its batch filled or the window closed: in `npm run bench` (1 s window, flaky
 * receiver) retries came up to a second late (schedule error p99 1.1 s against 0.16 s without)
 * and throughput at equal concurrency was about a fifth lower, for fewer invocations only.
 */
export const internalBatchingWindow = (settings: {
  readonly batchSize: number;
  readonly maxBatchingWindow: Duration;
}): Duration =>
  settings.batchSize > UNWINDOWED_MAX_BATCH_SIZE ? settings.maxBatchingWindow : Duration.seconds(0);

/** The ingress queue's visibility timeout is this multiple of the function timeout (AWS advice). */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

/** Above this batch size, SQS event sources require a batching window of at least 1 s. */
const UNWINDOWED_MAX_BATCH_SIZE = 10;
/**
 * The props beside the settings table's, for refusing a name that is none of them (a misspelt
 * prop would otherwise be ignored without a word). A record, so the compiler fails on a prop
 * added to the interface and not here, or listed here and not in it.
 */
const OTHER_PROP_NAMES: Readonly<
  Record<Exclude<keyof RetryOrchestratorProps, SettingName | "recordConcurrency">, true>
> = {
  defaultPolicy: true,
  policyLimits: true,
  signingSecret: true,
  encryption: true,
  removalPolicy: true,
  circuitBreaker: true,
  targets: true,
  ingressQueueProps: true,
  deadLetterQueueProps: true,
  tableProps: true,
  orchestratorFunctionProps: true,
};
const KNOWN_PROPS: readonly string[] = [
  ...SETTING_NAMES.flatMap((name) => {
    const alias = SETTINGS[name].deprecatedAlias?.prop;
    return alias === undefined ? [name] : [name, alias];
  }),
  ...Object.keys(OTHER_PROP_NAMES),
];

/** A renamed prop given under both names with different values: which one was meant is unknown. */
const renamedPropProblems = (props: RetryOrchestratorProps): InputProblem[] =>
  SETTING_NAMES.flatMap((name) => {
    const alias = SETTINGS[name].deprecatedAlias?.prop;
    const given = props as Readonly<Record<string, unknown>>;
    if (alias === undefined || given[alias] === undefined || given[name] === undefined) return [];
    if (given[alias] === given[name]) return [];
    return [
      {
        path: alias,
        message: `is the former name of ${name}, and the two differ (${given[alias]} and ${given[name]}); give only ${name}`,
      },
    ];
  });

/**
 * The checks on the resolved props that zod can express: each scalar setting's rule from
 * `SETTINGS` (durations read as whole seconds first), and the two rules that join props (batch
 * size against batching window, dead-letter against ingress retention). The policy, its limits,
 * the breakers and the per-target settings are checked by their own schemas.
 */
const ResolvedPropsSchema = z
  .object(Object.fromEntries(SETTING_NAMES.map((name) => [name, SETTINGS[name].rule])))
  .superRefine((value, ctx) => {
    const p = value as unknown as SettingValues;
    if (p.batchSize > UNWINDOWED_MAX_BATCH_SIZE && p.maxBatchingWindow < 1) {
      ctx.addIssue({
        code: "custom",
        path: ["batchSize"],
        message: `above ${UNWINDOWED_MAX_BATCH_SIZE} requires a maxBatchingWindow of at least 1 second`,
      });
    }
    if (p.deadLetterRetention <= p.ingressRetention) {
      ctx.addIssue({
        code: "custom",
        path: ["deadLetterRetention"],
        message: `must be longer than ingressRetention (${p.ingressRetention} s)`,
      });
    }
  });

/**
 * Seconds of a duration, or NaN (reported as a problem) when it cannot be read: a token, or a
 * fraction of a second, which no SQS or Lambda setting accepts.
 */
const seconds = (duration: Duration): number => {
  try {
    return duration.toSeconds();
  } catch {
    return Number.NaN;
  }
};

/** Problems of the limits' values, and of a default policy that breaks them. */
const limitProblems = (
  limits: RetryOrchestratorProps["policyLimits"],
  policy: PolicyOverride | undefined,
): InputProblem[] => {
  const checked = PolicyLimitsSchema.safeParse(limits ?? {});
  if (!checked.success) {
    return toProblems(checked.error).map((p) => ({ ...p, path: `policyLimits.${p.path}` }));
  }
  let resolved: ReturnType<typeof resolvePolicy>;
  try {
    resolved = resolvePolicy(DEFAULT_POLICY, policy);
  } catch {
    return []; // Reported by policyProblems.
  }
  return policyLimitConflicts(resolved, completePolicyLimits(checked.data)).map((p) => ({
    ...p,
    path: `defaultPolicy.${p.path}`,
  }));
};

/** The breakers' settings the prop asks for (values are checked by {@link breakerProblems}). */
const breakerSettingsOf = (
  prop: RetryOrchestratorProps["circuitBreaker"],
): BreakerSettings | undefined => {
  if (prop === undefined || prop === false) return undefined;
  return prop === true ? DEFAULT_BREAKER_SETTINGS : { ...DEFAULT_BREAKER_SETTINGS, ...prop };
};

const breakerProblems = (prop: RetryOrchestratorProps["circuitBreaker"]): InputProblem[] => {
  if (typeof prop !== "object") return [];
  const checked = BreakerSettingsSchema.safeParse(prop);
  return checked.success
    ? []
    : toProblems(checked.error).map((p) => ({ ...p, path: `circuitBreaker.${p.path}` }));
};

const targetsProblems = (prop: TargetsProps | undefined): InputProblem[] => {
  if (prop === undefined) return [];
  const checked = TargetsSettingsSchema.safeParse(prop);
  return checked.success
    ? []
    : toProblems(checked.error).map((p) => ({ ...p, path: `targets.${p.path}` }));
};

const policyProblems = (policy: PolicyOverride | undefined): InputProblem[] => {
  try {
    resolvePolicy(DEFAULT_POLICY, policy);
    return [];
  } catch (error) {
    if (!(error instanceof InvalidPolicyError)) throw error;
    return error.problems.map((problem) => ({
      path: problem.path === "" ? "defaultPolicy" : `defaultPolicy.${problem.path}`,
      message: problem.message,
    }));
  }
};

/** Each scalar setting as given, else under its former name, else its default. */
const settingProps = (props: RetryOrchestratorProps): SettingProps => {
  const given = props as Readonly<Record<string, unknown>>;
  const givenOrDefault = (name: SettingName): unknown => {
    const alias = SETTINGS[name].deprecatedAlias?.prop;
    return given[name] ?? (alias === undefined ? undefined : given[alias]) ?? propDefault(name);
  };
  return Object.fromEntries(
    SETTING_NAMES.map((name) => [name, givenOrDefault(name)]),
  ) as SettingProps;
};

/** The scalar settings as their rules read them: durations in seconds. */
const inSeconds = (props: SettingProps): Record<SettingName, unknown> =>
  Object.fromEntries(
    SETTING_NAMES.map((name) => {
      const value = props[name];
      return [name, value instanceof Duration ? seconds(value) : value];
    }),
  ) as Record<SettingName, unknown>;

/**
 * Applies the defaults and checks every prop, including the ones that only conflict together.
 * @throws ConfigurationError listing every problem at once.
 */
export const resolveRetryOrchestratorProps = (
  props: RetryOrchestratorProps = {},
): ResolvedRetryOrchestratorProps => {
  const resolved: ResolvedRetryOrchestratorProps = {
    ...settingProps(props),
    defaultPolicy: props.defaultPolicy,
    // Checked below with the rest; filling in the defaults needs no valid values.
    policyLimits: completePolicyLimits(props.policyLimits),
    signingSecret: props.signingSecret,
    encryption: props.encryption ?? OrchestratorEncryption.sqsManaged(),
    removalPolicy: props.removalPolicy ?? RETRY_ORCHESTRATOR_DEFAULTS.removalPolicy,
    circuitBreaker: breakerSettingsOf(props.circuitBreaker),
    targets: props.targets,
  };
  const checked = ResolvedPropsSchema.safeParse(inSeconds(resolved));
  const problems = [
    ...(checked.success ? [] : toProblems(checked.error)),
    ...policyProblems(resolved.defaultPolicy),
    ...limitProblems(props.policyLimits, resolved.defaultPolicy),
    ...breakerProblems(props.circuitBreaker),
    ...targetsProblems(props.targets),
    ...unknownNameProblems(Object.keys(props), KNOWN_PROPS),
    ...renamedPropProblems(props),
    ...overrideProblems(props),
  ];
  if (problems.length > 0) {
    throw new ConfigurationError(`invalid RetryOrchestrator props: ${formatProblems(problems)}`, {
      context: { problems },
    });
  }
  return resolved;
};

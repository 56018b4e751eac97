import { Duration, Lazy, Stack } from "aws-cdk-lib";
import type { Alarm, Dashboard } from "aws-cdk-lib/aws-cloudwatch";
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  Table,
  TableEncryption,
} from "aws-cdk-lib/aws-dynamodb";
import { Rule, RuleTargetInput, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction as LambdaFunctionTarget } from "aws-cdk-lib/aws-events-targets";
import {
  AnyPrincipal,
  Effect,
  Grant,
  type IGrantable,
  type IPrincipal,
  PolicyStatement,
} from "aws-cdk-lib/aws-iam";
import {
  Architecture,
  type Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  Tracing,
} from "aws-cdk-lib/aws-lambda";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import type { IStringParameter } from "aws-cdk-lib/aws-ssm";
import { Construct } from "constructs";
import { ENV } from "../contract/environment.js";
import { DUE_INDEX, RECORD_KEY, STATUS_INDEX, TTL_ATTRIBUTE } from "../contract/record-table.js";
import { ConfigurationError } from "../core/errors.js";
import { stuckAfterSecondsOf } from "../core/stuck.js";
import type { FunctionName } from "./bundling.js";
import { acknowledgeOrchestratorFindings } from "./nag-acknowledgements.js";
import {
  OrchestratorMonitoring,
  SERVICE_NAME,
  STUCK_SWEEP_INTERVAL,
} from "./orchestrator-monitoring.js";
import {
  internalBatchingWindow,
  type ResolvedRetryOrchestratorProps,
  type RetryOrchestratorProps,
  resolveRetryOrchestratorProps,
  settingsEnvironment,
  VISIBILITY_TIMEOUT_FACTOR,
} from "./retry-orchestrator-props.js";
import { createRicochetFunction, type RicochetFunctionProps } from "./ricochet-function.js";
import { warnOnShortRetryWindow } from "./short-retry-window-warning.js";

/** Attribute names of the attempt-record table: the DynamoDB adapter's, so they cannot drift. */
export const TABLE_KEYS = {
  PARTITION_KEY: RECORD_KEY,
  TTL_ATTRIBUTE,
  STATUS_INDEX: STATUS_INDEX.name,
  STATUS_INDEX_PARTITION_KEY: STATUS_INDEX.partitionKey,
  STATUS_INDEX_SORT_KEY: STATUS_INDEX.sortKey,
} as const;

/**
 * The operator function runs on an operator's request and paces itself (a redrive of a whole
 * dead-letter queue), so it gets Lambda's full 15 min.
 */
const OPERATOR_FUNCTION_TIMEOUT = Duration.minutes(15);
const OPERATOR_FUNCTION_MEMORY_MIB = 256;

/** A grant that changes no policy, to combine with when an optional resource is absent. */
const noGrant = (grantee: IGrantable): Grant => Grant.drop(grantee, "no KMS key to grant");

const isSecret = (secret: ISecret | IStringParameter): secret is ISecret => "secretArn" in secret;

/**
 * Ricochet's retry orchestrator: an ingress queue feeding the orchestrator function, a dead-letter
 * queue with an audited operator function (redrive, cancel, replay), the attempt-record table,
 * alarms and a dashboard.
 *
 * @example
 * const orchestrator = new RetryOrchestrator(this, "Retries", {
 *   defaultPolicy: { maxAttempts: 5 },
 *   allowedTargetHosts: ["hooks.internal.example.com"],
 * });
 * orchestrator.grantSubmit(producerFunction);
 */
export class RetryOrchestrator extends Construct {
  /** Producers send envelopes here (see {@link grantSubmit}). */
  public readonly ingressQueue: Queue;
  /**
   * Ricochet's own channel into the orchestrator: retries, hops and redrives. Only the
   * orchestrator and operator functions' roles (and {@link grantDirectRedrive} grantees) may send to it,
   * which is why its scheduling attributes are believed and the ingress queue's never are.
   * Grant nothing else on it.
   */
  public readonly internalQueue: Queue;
  /** Exhausted, rejected and crashing messages end here, awaiting a redrive. */
  public readonly deadLetterQueue: Queue;
  /** Attempt records, keyed by `eventId`, with the `byStatus` index. */
  public readonly table: Table;
  /** Delivers events from both input queues; its code is described in `ricochet-function.ts`. */
  public readonly orchestratorFunction: LambdaFunction;
  /**
   * Runs operators' redrives, cancels and replays, and the scheduled stuck sweep. Its construct id is still `Redrive`, so that a deployed function is
   * updated in place rather than replaced.
   */
  public readonly operatorFunction: LambdaFunction;
  public readonly dashboard: Dashboard;
  public readonly deadLetterAlarm: Alarm;
  public readonly oldestMessageAlarm: Alarm;
  public readonly orchestratorErrorsAlarm: Alarm;
  /** Fires when a target's breaker has stayed open too long; undefined with breakers off. */
  public readonly breakerOpenAlarm: Alarm | undefined;
  /** Fires when the scheduled sweep finds stuck events (`ricochet events --stuck`). */
  public readonly stuckEventsAlarm: Alarm;
  /** The props after defaults, as deployed. */
  public readonly settings: ResolvedRetryOrchestratorProps;
  /** ARNs of the principals the internal queue's policy lets send (see {@link internalQueue}). */
  private readonly internalSenders: string[] = [];

  /**
   * @throws ConfigurationError listing every invalid or conflicting prop at once.
   */
  public constructor(scope: Construct, id: string, props: RetryOrchestratorProps = {}) {
    // Validated before super() so that invalid props leave no half-built construct in the tree.
    const settings = resolveRetryOrchestratorProps(props);
    super(scope, id);
    this.settings = settings;
    const key = settings.encryption.key;
    const queueEncryption = key
      ? { encryption: QueueEncryption.KMS, encryptionMasterKey: key }
      : { encryption: QueueEncryption.SQS_MANAGED };

    this.deadLetterQueue = new Queue(this, "DeadLetterQueue", {
      ...props.deadLetterQueueProps,
      ...queueEncryption,
      enforceSSL: true,
      retentionPeriod: settings.deadLetterRetention,
      removalPolicy: settings.removalPolicy,
    });
    const inputQueue = {
      ...queueEncryption,
      enforceSSL: true,
      retentionPeriod: settings.ingressRetention,
      // A message stays invisible across the function's own retries of a throttled batch.
      visibilityTimeout: Duration.seconds(
        settings.functionTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR,
      ),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
      removalPolicy: settings.removalPolicy,
    };
    this.ingressQueue = new Queue(this, "IngressQueue", {
      ...props.ingressQueueProps,
      ...inputQueue,
    });
    this.internalQueue = new Queue(this, "InternalQueue", inputQueue);

    this.table = new Table(this, "Table", {
      ...props.tableProps,
      partitionKey: { name: TABLE_KEYS.PARTITION_KEY, type: AttributeType.STRING },
      billingMode: props.tableProps?.billingMode ?? BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE_KEYS.TTL_ATTRIBUTE,
      ...(key
        ? { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey: key }
        : { encryption: TableEncryption.DEFAULT }),
      removalPolicy: settings.removalPolicy,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: TABLE_KEYS.STATUS_INDEX,
      partitionKey: { name: TABLE_KEYS.STATUS_INDEX_PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.STATUS_INDEX_SORT_KEY, type: AttributeType.STRING },
      projectionType: ProjectionType.ALL,
    });
    // Waiting records by due day, for the stuck-event sweep (lib/contract/record-table.ts).
    this.table.addGlobalSecondaryIndex({
      indexName: DUE_INDEX.name,
      partitionKey: { name: DUE_INDEX.partitionKey, type: AttributeType.STRING },
      sortKey: { name: DUE_INDEX.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.KEYS_ONLY,
    });

    const environment = this.environment(settings);
    this.orchestratorFunction = this.lambda("Orchestrator", "orchestrator", environment, {
      ...props.orchestratorFunctionProps,
      timeout: settings.functionTimeout,
      memorySize: settings.memorySize,
      description: "Ricochet: delivers events from the ingress queue and schedules retries.",
    });
    this.operatorFunction = this.lambda("Redrive", "operator", environment, {
      timeout: OPERATOR_FUNCTION_TIMEOUT,
      memorySize: OPERATOR_FUNCTION_MEMORY_MIB,
      description: "Ricochet: moves selected dead-lettered events back to the ingress queue.",
    });
    // So the orchestrator refuses an event targeting the operator function (it knows its own name
    // from Lambda). One way only: the operator function naming the orchestrator would be a cycle.
    this.orchestratorFunction.addEnvironment(
      ENV.OPERATOR_FUNCTION_NAME,
      this.operatorFunction.functionName,
    );

    // Both queues feed the same function with the same settings but the window (retries are due
    // when their policy says); which one a record came from is what tells the function whether
    // to believe its scheduling attributes.
    for (const [queue, maxBatchingWindow] of [
      [this.ingressQueue, settings.maxBatchingWindow],
      [this.internalQueue, internalBatchingWindow(settings)],
    ] as const) {
      this.orchestratorFunction.addEventSource(
        new SqsEventSource(queue, {
          batchSize: settings.batchSize,
          maxBatchingWindow,
          maxConcurrency: settings.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
    }
    this.grantOrchestrator(settings);
    this.deadLetterQueue.grantConsumeMessages(this.operatorFunction);
    this.internalQueue.grantSendMessages(this.operatorFunction);
    this.table.grantReadWriteData(this.operatorFunction);

    this.allowInternalSend(this.orchestratorFunction.role);
    this.allowInternalSend(this.operatorFunction.role);
    // Identity policies are not enough: a producer role granted sqs:SendMessage on "*" could
    // otherwise forge retries. The queue itself refuses every sender but Ricochet's own.
    onlyRicochetSends(this.internalQueue, () => this.internalSenders);
    // The same for dead-letter copies, whose summary redrive reads: only the orchestrator writes
    // them (redrive and `dlq clean` never send here). A forged copy could otherwise be listed as
    // genuine and moved by a routine redrive (redrive also checks each copy against the record).
    const orchestratorArn = principalArnOf(this.orchestratorFunction.role);
    if (orchestratorArn === undefined) {
      throw new ConfigurationError("the orchestrator function needs a role to send dead letters");
    }
    onlyRicochetSends(this.deadLetterQueue, () => [orchestratorArn], { exemptAwsServices: true });

    const monitoring = new OrchestratorMonitoring(this, "Monitoring", {
      ingressQueue: this.ingressQueue,
      internalQueue: this.internalQueue,
      deadLetterQueue: this.deadLetterQueue,
      orchestratorFunction: this.orchestratorFunction,
      metricsNamespace: settings.metricsNamespace,
      deadLetterAlarmThreshold: settings.deadLetterAlarmThreshold,
      oldestMessageAge: settings.oldestMessageAlarmAge,
      breakerOpenAge:
        settings.circuitBreaker === undefined ? undefined : settings.breakerOpenAlarmAge,
    });
    this.dashboard = monitoring.dashboard;
    this.deadLetterAlarm = monitoring.deadLetterAlarm;
    this.oldestMessageAlarm = monitoring.oldestMessageAlarm;
    this.orchestratorErrorsAlarm = monitoring.orchestratorErrorsAlarm;
    this.breakerOpenAlarm = monitoring.breakerOpenAlarm;
    this.stuckEventsAlarm = monitoring.stuckEventsAlarm;
    new Rule(this, "StuckSweepSchedule", {
      description: "Ricochet: sweeps the due index for stuck events (the stuck-events alarm).",
      schedule: Schedule.rate(STUCK_SWEEP_INTERVAL),
      targets: [
        new LambdaFunctionTarget(this.operatorFunction, {
          event: RuleTargetInput.fromObject({ action: "sweep-stuck" }),
        }),
      ],
    });

    acknowledgeOrchestratorFindings({
      functions: [this.orchestratorFunction, this.operatorFunction],
      table: this.table,
      key,
    });
    warnOnShortRetryWindow(this, settings);
  }

  /**
   * @deprecated The former name of {@link operatorFunction}, the same function; use
   * `operatorFunction`.
   */
  public get redriveFunction(): LambdaFunction {
    return this.operatorFunction;
  }

  /** Lets `grantee` submit envelopes: SendMessage on the ingress queue (and its KMS key, if any). */
  public grantSubmit(grantee: IGrantable): Grant {
    return this.ingressQueue.grantSendMessages(grantee);
  }

  /**
   * Lets `grantee` run redrives through the operator function (`ricochet redrive --function`) and
   * follow events (`ricochet status`, `ricochet events --status dead_lettered`): invoke the
   * operator function and read the record table, whose messages and excerpts are redacted. It does not
   * let `grantee` read the dead-letter queue, whose copies hold producers' headers in clear text:
   * see {@link grantDeadLetterRead}.
   */
  public grantRedrive(grantee: IGrantable): Grant {
    return this.operatorFunction.grantInvoke(grantee).combine(this.table.grantReadData(grantee));
  }

  /**
   * Lets `grantee` read the dead-letter queue without consuming it (`ricochet dlq list`): receive,
   * change visibility and read attributes on the queue, and decrypt with its KMS key, if any; and
   * read the record table, against which the listing checks each copy's summary.
   *
   * Dead-letter copies hold the producers' whole envelopes, target headers included, in clear
   * text: API keys, bearer tokens, URL passwords and any other secret a producer sends. Grant
   * this only to operators who may see those secrets; {@link grantRedrive} is enough to redrive
   * and to follow events.
   */
  public grantDeadLetterRead(grantee: IGrantable): Grant {
    return this.deadLetterQueue
      .grant(
        grantee,
        "sqs:ReceiveMessage",
        "sqs:ChangeMessageVisibility",
        "sqs:GetQueueAttributes",
        "sqs:GetQueueUrl",
      )
      .combine(this.deadLetterQueue.encryptionMasterKey?.grantDecrypt(grantee) ?? noGrant(grantee))
      .combine(this.table.grantReadData(grantee));
  }

  /**
   * Lets `grantee` run `ricochet redrive` from a workstation, which moves messages with the
   * caller's own credentials rather than through the operator function: everything of
   * {@link grantRedrive} and {@link grantDeadLetterRead} (so the dead-letter copies' headers,
   * secrets included, in clear text), plus consuming the dead-letter queue, sending to the internal
   * queue and writing records (the redrive's audit entry). Prefer {@link grantRedrive} where
   * operators can invoke the function instead (`ricochet redrive --function`).
   */
  public grantDirectRedrive(grantee: IGrantable): Grant {
    this.allowInternalSend(grantee.grantPrincipal);
    return this.grantRedrive(grantee)
      .combine(this.grantDeadLetterRead(grantee))
      .combine(this.deadLetterQueue.grantConsumeMessages(grantee))
      .combine(this.internalQueue.grantSendMessages(grantee))
      .combine(this.table.grantWriteData(grantee));
  }

  /**
   * Adds a principal to those the internal queue accepts messages from.
   * @throws ConfigurationError for a principal without a role or user ARN (the queue's policy
   * names senders by ARN).
   */
  private allowInternalSend(principal: IPrincipal | IGrantable | undefined): void {
    const arn = principalArnOf(principal);
    if (arn === undefined) {
      throw new ConfigurationError(
        "the internal queue only accepts roles and users; grant a role or user, or invoke the operator function instead (grantRedrive)",
      );
    }
    this.internalSenders.push(arn);
  }

  private environment(settings: ResolvedRetryOrchestratorProps): Record<string, string> {
    const secret = settings.signingSecret;
    return {
      [ENV.TABLE_NAME]: this.table.tableName,
      [ENV.INGRESS_QUEUE_URL]: this.ingressQueue.queueUrl,
      [ENV.INTERNAL_QUEUE_URL]: this.internalQueue.queueUrl,
      [ENV.DEAD_LETTER_QUEUE_URL]: this.deadLetterQueue.queueUrl,
      ...settingsEnvironment(settings),
      [ENV.DEFAULT_POLICY]: JSON.stringify(settings.defaultPolicy ?? {}),
      // Past every receive a live message may still get: no live message is later than this.
      [ENV.STUCK_AFTER_SECONDS]: String(
        stuckAfterSecondsOf({
          visibilityTimeoutSeconds:
            settings.functionTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR,
          maxReceiveCount: settings.maxReceiveCount,
        }),
      ),
      [ENV.SIGNING_SECRET]:
        secret === undefined
          ? ""
          : isSecret(secret)
            ? secret.secretArn
            : // The prefix marks a parameter whose name has no leading slash as a parameter.
              `ssm:${secret.parameterName}`,
      [ENV.POLICY_LIMITS]: JSON.stringify(settings.policyLimits),
      [ENV.ACCOUNT_ID]: Stack.of(this).account,
      [ENV.CIRCUIT_BREAKER]:
        settings.circuitBreaker === undefined ? "off" : JSON.stringify(settings.circuitBreaker),
      [ENV.TARGETS]: settings.targets === undefined ? "" : JSON.stringify(settings.targets),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      // The bundles ship source maps; without this flag Node ignores them in stack traces.
      NODE_OPTIONS: "--enable-source-maps",
    };
  }

  private lambda(
    id: string,
    name: FunctionName,
    environment: Record<string, string>,
    sizing: Partial<RicochetFunctionProps> & {
      timeout: Duration;
      memorySize: number;
      description: string;
    },
  ): LambdaFunction {
    const logGroup =
      sizing.logGroup ??
      new LogGroup(this, `${id}Logs`, {
        retention: RetentionDays.ONE_MONTH,
        removalPolicy: this.settings.removalPolicy,
      });
    // Ricochet's defaults first, the deployment's overrides over them, then what it must keep
    // (the runtime and environment: overriding them is refused when the props are resolved).
    return createRicochetFunction(this, id, name, {
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      loggingFormat: LoggingFormat.JSON,
      ...sizing,
      logGroup,
      runtime: Runtime.NODEJS_24_X,
      environment,
    });
  }

  private grantOrchestrator(settings: ResolvedRetryOrchestratorProps): void {
    const fn = this.orchestratorFunction;
    // Consuming both queues is granted by the event sources; re-enqueueing (on the internal
    // queue only: the orchestrator never writes to the producers' queue) is granted here.
    this.internalQueue.grantSendMessages(fn);
    this.deadLetterQueue.grantSendMessages(fn);
    this.table.grantReadWriteData(fn);
    settings.signingSecret?.grantRead(fn);
    if (settings.lambdaTargets.length > 0) {
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ["lambda:InvokeFunction"],
          resources: [...settings.lambdaTargets],
        }),
      );
    }
  }
}

/** The role or user ARN a queue policy names a principal by, if it has one. */
const principalArnOf = (principal: IPrincipal | IGrantable | undefined): string | undefined => {
  const named = principal as { roleArn?: string; userArn?: string } | undefined;
  return named?.roleArn ?? named?.userArn;
};

/**
 * Denies sqs:SendMessage on `queue` to every principal whose ARN is not among `senders()`
 * (read at synthesis, so senders granted later are included).
 *
 * With `exemptAwsServices`, AWS service principals are left out of the deny, as AWS's own
 * resource-control-policy examples do (`BoolIfExists aws:PrincipalIsAWSService false`). That is
 * for the dead-letter queue, which the ingress and internal queues' native `maxReceiveCount`
 * redrive also fills. That move is made by SQS itself, not by a principal calling SendMessage:
 * the SQS developer guide governs it by the dead-letter queue's redrive allow policy (which
 * source queues may name it) and asks no SendMessage permission of anyone, so a deny on
 * principals' sends does not block it. The exemption keeps it so even if SQS authorised the move
 * as a service principal's send, and opens nothing: a service principal may send only where a
 * resource policy allows it, and this queue's allows no service.
 */
const onlyRicochetSends = (
  queue: Queue,
  senders: () => string[],
  options: { readonly exemptAwsServices?: boolean } = {},
): void => {
  queue.addToResourcePolicy(
    new PolicyStatement({
      sid: "OnlyRicochetSends",
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ["sqs:SendMessage"],
      resources: [queue.queueArn],
      conditions: {
        ArnNotEquals: { "aws:PrincipalArn": Lazy.list({ produce: senders }) },
        ...(options.exemptAwsServices === true
          ? { BoolIfExists: { "aws:PrincipalIsAWSService": "false" } }
          : {}),
      },
    }),
  );
};

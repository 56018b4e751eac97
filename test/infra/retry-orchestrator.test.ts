import { App, type CfnElement, Duration, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { AccountRootPrincipal, type IRole, Role } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ENV } from "../../lib/contract/environment.js";
import { MetricName } from "../../lib/contract/metric-names.js";
import { STACK_OUTPUTS } from "../../lib/contract/stack-outputs.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import { ConfigurationError } from "../../lib/core/errors.js";
import { RetryOrchestrator } from "../../lib/infra/retry-orchestrator.js";
import {
  OrchestratorEncryption,
  type RetryOrchestratorProps,
  resolveRetryOrchestratorProps,
  VISIBILITY_TIMEOUT_FACTOR,
} from "../../lib/infra/retry-orchestrator-props.js";
import { RicochetStack } from "../../lib/infra/ricochet-stack.js";

type Resources = Record<string, { Properties: Record<string, unknown> }>;

const SIGNING_SECRET_ARN =
  "arn:aws:secretsmanager:eu-west-1:123456789012:secret:ricochet-signing-AbCdEf";
const TARGET_ARN = "arn:aws:lambda:eu-west-1:123456789012:function:downstream";

/** The one resource of a type, failing loudly when there is not exactly one. */
const only = (resources: Resources): { id: string; props: Record<string, unknown> } => {
  const entries = Object.entries(resources);
  expect(entries).toHaveLength(1);
  const [id, resource] = entries[0] ?? ["", { Properties: {} }];
  return { id, props: resource.Properties };
};

let template: Template;
let customTemplate: Template;
let stack: RicochetStack;
let producer: Role;
let operator: Role;
let reader: Role;
let customProducer: Role;
let customOperator: Role;
let customReader: Role;
let customOrchestrator: RetryOrchestrator;

beforeAll(() => {
  // Bundling happens while constructing; both stacks are built once and synthesized once.
  const app = new App();
  stack = new RicochetStack(app, "Ricochet");
  producer = new Role(stack, "Producer", { assumedBy: new AccountRootPrincipal() });
  operator = new Role(stack, "Operator", { assumedBy: new AccountRootPrincipal() });
  stack.orchestrator.grantSubmit(producer);
  stack.orchestrator.grantRedrive(operator);
  reader = new Role(stack, "Reader", { assumedBy: new AccountRootPrincipal() });
  stack.orchestrator.grantDeadLetterRead(reader);

  const custom = new Stack(app, "Custom");
  const key = new Key(custom, "Key", { enableKeyRotation: true });
  customOrchestrator = new RetryOrchestrator(custom, "Retries", {
    encryption: OrchestratorEncryption.kms(key),
    lambdaTargets: [TARGET_ARN],
    signingSecret: Secret.fromSecretCompleteArn(custom, "Signing", SIGNING_SECRET_ARN),
    functionTimeout: Duration.seconds(120),
    defaultPolicy: { maxAttempts: 3, jitter: "equal" },
    policyLimits: { maxAttempts: 10 },
    allowedTargetHosts: ["10.0.0.0/8", "hooks.internal"],
    secretHeaders: ["X-Api-Key"],
    metricsNamespace: "Custom",
  });
  customProducer = new Role(custom, "Producer", { assumedBy: new AccountRootPrincipal() });
  customOrchestrator.grantSubmit(customProducer);
  customOperator = new Role(custom, "Operator", { assumedBy: new AccountRootPrincipal() });
  customOrchestrator.grantRedrive(customOperator);
  customReader = new Role(custom, "Reader", { assumedBy: new AccountRootPrincipal() });
  customOrchestrator.grantDeadLetterRead(customReader);

  template = Template.fromStack(stack);
  customTemplate = Template.fromStack(custom);
});

const queues = (t: Template) => {
  const all = Object.entries(t.findResources("AWS::SQS::Queue") as Resources);
  const input = all.filter(([, q]) => q.Properties.RedrivePolicy !== undefined);
  const [ingressId, ingress] = input.find(([id]) => id.includes("Ingress")) ?? [];
  const [internalId, internal] = input.find(([id]) => id.includes("Internal")) ?? [];
  const [deadLetterId, deadLetter] =
    all.find(([, q]) => q.Properties.RedrivePolicy === undefined) ?? [];
  if (!ingress || !internal || !deadLetter || !ingressId || !internalId || !deadLetterId)
    throw new Error("queues missing");
  return {
    ingressId,
    ingress: ingress.Properties,
    internalId,
    internal: internal.Properties,
    deadLetterId,
    deadLetter: deadLetter.Properties,
  };
};

/** The Deny statement of a queue's policy (the internal one by default), with the ARNs it lets through. */
const sendGuard = (t: Template, queue: "internalId" | "deadLetterId") => {
  const queueId = queues(t)[queue];
  const [policy] = Object.values(
    t.findResources("AWS::SQS::QueuePolicy", {
      Properties: { Queues: [{ Ref: queueId }] },
    }) as Resources,
  );
  const statements = (
    policy?.Properties.PolicyDocument as { Statement: Record<string, unknown>[] } | undefined
  )?.Statement;
  return statements?.find((st) => st.Sid === "OnlyRicochetSends") as
    | {
        Effect: string;
        Action: string;
        Condition: {
          ArnNotEquals: { "aws:PrincipalArn": unknown[] };
          BoolIfExists?: Record<string, string>;
        };
      }
    | undefined;
};

const internalSendGuard = (t: Template) => sendGuard(t, "internalId");

const roleArnOf = (role: IRole | undefined) => {
  const cfnRole = role?.node.defaultChild as CfnElement;
  return { "Fn::GetAtt": [Stack.of(cfnRole).getLogicalId(cfnRole), "Arn"] };
};

const orchestratorFunction = (t: Template) =>
  only(
    t.findResources("AWS::Lambda::Function", {
      Properties: { Description: Match.stringLikeRegexp("delivers events") },
    }) as Resources,
  );

/** The policy document attached to a role, found by the role's construct. */
const policyOf = (t: Template, role: IRole | undefined) => {
  const cfnRole = role?.node.defaultChild as CfnElement;
  return only(
    t.findResources("AWS::IAM::Policy", {
      Properties: { Roles: [{ Ref: Stack.of(cfnRole).getLogicalId(cfnRole) }] },
    }) as Resources,
  ).props.PolicyDocument;
};

describe("RetryOrchestrator resources", () => {
  it("creates exactly three queues, all encrypted and TLS-only", () => {
    template.resourceCountIs("AWS::SQS::Queue", 3);
    const { ingress, internal, deadLetter } = queues(template);
    expect(ingress.SqsManagedSseEnabled).toBe(true);
    expect(internal.SqsManagedSseEnabled).toBe(true);
    expect(deadLetter.SqsManagedSseEnabled).toBe(true);
    template.resourceCountIs("AWS::SQS::QueuePolicy", 3);
    template.allResourcesProperties("AWS::SQS::QueuePolicy", {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: "Deny",
            Condition: { Bool: { "aws:SecureTransport": "false" } },
          }),
        ]),
      },
    });
  });

  it("lets only the orchestrator role send to the dead-letter queue; SQS's own maxReceiveCount move stays allowed", () => {
    const guard = sendGuard(template, "deadLetterId");
    expect(guard?.Effect).toBe("Deny");
    expect(guard?.Action).toBe("sqs:SendMessage");
    expect(guard?.Condition.ArnNotEquals["aws:PrincipalArn"]).toEqual([
      roleArnOf(stack.orchestrator.orchestratorFunction.role),
    ]);
    // An AWS service principal is not denied (the native move, should SQS authorise it so).
    expect(guard?.Condition.BoolIfExists).toEqual({ "aws:PrincipalIsAWSService": "false" });
    expect(internalSendGuard(template)?.Condition.BoolIfExists).toBeUndefined();
  });

  it("sends messages that crash the function to the dead-letter queue after maxReceiveCount, from either input queue", () => {
    const { ingress, internal, deadLetterId } = queues(template);
    for (const queue of [ingress, internal]) {
      expect(queue.RedrivePolicy).toEqual({
        deadLetterTargetArn: { "Fn::GetAtt": [deadLetterId, "Arn"] },
        maxReceiveCount: 10,
      });
    }
    expect(internal.VisibilityTimeout).toBe(ingress.VisibilityTimeout);
  });

  it("lets only the orchestrator and operator functions' roles send to the internal queue, whatever else is granted", () => {
    const guard = internalSendGuard(template);
    expect(guard?.Effect).toBe("Deny");
    expect(guard?.Action).toBe("sqs:SendMessage");
    expect(guard?.Condition.ArnNotEquals["aws:PrincipalArn"]).toEqual([
      roleArnOf(stack.orchestrator.orchestratorFunction.role),
      roleArnOf(stack.orchestrator.operatorFunction.role),
    ]);
  });

  it("re-enqueues on the internal queue only: the orchestrator cannot write to the producers' queue", () => {
    const { ingressId, internalId } = queues(template);
    const document = JSON.stringify(
      policyOf(template, stack.orchestrator.orchestratorFunction.role),
    );
    const sends = (
      policyOf(template, stack.orchestrator.orchestratorFunction.role) as {
        Statement: { Action: string | string[]; Resource: unknown }[];
      }
    ).Statement.filter((st) => [st.Action].flat().includes("sqs:SendMessage"));
    expect(sends.map((st) => JSON.stringify(st.Resource))).toEqual(
      expect.arrayContaining([expect.stringContaining(internalId)]),
    );
    expect(sends.some((st) => JSON.stringify(st.Resource).includes(ingressId))).toBe(false);
    expect(document).toContain(internalId);
  });

  it("keeps dead-lettered messages longer than ingress messages", () => {
    const { ingress, deadLetter } = queues(template);
    expect(deadLetter.MessageRetentionPeriod).toBeGreaterThan(
      ingress.MessageRetentionPeriod as number,
    );
  });

  it.each([
    ["default", () => template],
    ["custom timeout", () => customTemplate],
  ])("sets the ingress visibility timeout to at least 6 x the function timeout (%s)", (_, t) => {
    const { ingress } = queues(t());
    const timeout = orchestratorFunction(t()).props.Timeout as number;
    expect(ingress.VisibilityTimeout).toBeGreaterThanOrEqual(VISIBILITY_TIMEOUT_FACTOR * timeout);
  });

  it("keys the record table by eventId, on demand, with PITR, TTL and the sparse byStatus and byDue indexes", () => {
    template.resourceCountIs("AWS::DynamoDB::Table", 1);
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      KeySchema: [{ AttributeName: "eventId", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
      GlobalSecondaryIndexes: [
        {
          IndexName: "byStatus",
          KeySchema: [
            { AttributeName: "listedStatus", KeyType: "HASH" },
            { AttributeName: "updatedAt", KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "ALL" },
        },
        {
          IndexName: "byDue",
          KeySchema: [
            { AttributeName: "dueBucket", KeyType: "HASH" },
            { AttributeName: "nextAttemptAt", KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "KEYS_ONLY" },
        },
      ],
    });
  });

  it("sweeps for stuck events every 5 min through the operator function, and alarms on one found", () => {
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(5 minutes)",
      Targets: [{ Input: JSON.stringify({ action: "sweep-stuck" }) }],
    });
    const alarms = template.findResources("AWS::CloudWatch::Alarm", {
      Properties: { MetricName: MetricName.STUCK_EVENTS },
    });
    expect(only(alarms as Resources).props).toMatchObject({
      Statistic: "Maximum",
      Period: 300,
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });
    // The deployed ratio: a 360 s visibility timeout (6 × 60 s) × maxReceiveCount 10.
    const variables = (
      orchestratorFunction(template).props.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(variables.RICOCHET_STUCK_AFTER_SECONDS).toBe("3600");
  });

  it("feeds the orchestrator from both input queues with partial batch failure reporting and the configured scaling", () => {
    template.resourceCountIs("AWS::Lambda::EventSourceMapping", 2);
    const { ingressId, internalId } = queues(template);
    // No window by default; the internal queue (retries, hops) gathers none even when the
    // ingress queue is given one (below).
    for (const [queueId, window] of [
      [ingressId, 0],
      [internalId, 0],
    ] as const) {
      template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
        EventSourceArn: { "Fn::GetAtt": [queueId, "Arn"] },
        FunctionName: { Ref: orchestratorFunction(template).id },
        FunctionResponseTypes: ["ReportBatchItemFailures"],
        BatchSize: 10,
        MaximumBatchingWindowInSeconds: window,
        ScalingConfig: { MaximumConcurrency: 10 },
      });
    }
  });

  it.each([
    [{}, ENV.LEGACY_SIGNATURES, "on"],
    [{ legacySignatures: false }, ENV.LEGACY_SIGNATURES, "off"],
    [{}, ENV.TRACING, "off"],
    [{ tracing: true }, ENV.TRACING, "on"],
    [{}, ENV.ADAPTIVE_LIMITS, "off"],
    [{ adaptiveLimits: true }, ENV.ADAPTIVE_LIMITS, "on"],
  ])("with %o sets the orchestrator's %s to %s", (props, name, value) => {
    const stack = new Stack(new App(), "Switches");
    const made = new RetryOrchestrator(stack, "Ricochet", props);
    Template.fromStack(stack).hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: Match.absent(),
      Environment: {
        Variables: Match.objectLike({
          [name]: value,
          [ENV.INTERNAL_QUEUE_URL]: Match.anyValue(),
        }),
      },
    });
    expect(made.orchestratorFunction).toBeDefined();
  });

  it("gives the ingress queue the window asked for, and the internal queue none", () => {
    const stack = new Stack(new App(), "Windowed");
    new RetryOrchestrator(stack, "Ricochet", { maxBatchingWindow: Duration.seconds(2) });
    const windows = Object.values(
      Template.fromStack(stack).findResources("AWS::Lambda::EventSourceMapping"),
    ).map((mapping) => mapping.Properties.MaximumBatchingWindowInSeconds ?? 0);
    expect(windows.sort()).toEqual([0, 2]);
  });

  it("keeps a window on the internal queue only when the batch size needs one", () => {
    const stack = new Stack(new App(), "BigBatches");
    new RetryOrchestrator(stack, "Ricochet", {
      batchSize: 50,
      maxBatchingWindow: Duration.seconds(5),
    });
    const windows = Object.values(
      Template.fromStack(stack).findResources("AWS::Lambda::EventSourceMapping"),
    ).map((mapping) => mapping.Properties.MaximumBatchingWindowInSeconds);
    expect(windows).toEqual([5, 5]);
  });

  it("runs both functions on nodejs24.x, arm64, with active tracing and every ENV variable", () => {
    const functions = template.findResources("AWS::Lambda::Function") as Resources;
    expect(Object.keys(functions)).toHaveLength(2);
    for (const { Properties } of Object.values(functions)) {
      expect(Properties).toMatchObject({
        Runtime: "nodejs24.x",
        Architectures: ["arm64"],
        TracingConfig: { Mode: "Active" },
        Handler: "index.handler",
      });
      const variables = (Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      // The operator function cannot be told its own name (a dependency cycle); Lambda tells it.
      const orchestratorOnly: string[] = [ENV.OPERATOR_FUNCTION_NAME];
      const isOrchestrator = String(Properties.Description).includes("delivers events");
      for (const name of [...Object.values(ENV), "POWERTOOLS_SERVICE_NAME"]) {
        if (!isOrchestrator && orchestratorOnly.includes(name)) continue;
        expect(variables, name).toHaveProperty([name]);
      }
      expect(variables.POWERTOOLS_METRICS_NAMESPACE).toBe("Ricochet");
    }
  });

  it("passes the custom configuration to the functions' environment", () => {
    const variables = (
      orchestratorFunction(customTemplate).props.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(variables).toMatchObject({
      [ENV.DEFAULT_POLICY]: JSON.stringify({ maxAttempts: 3, jitter: "equal" }),
      [ENV.ALLOWED_TARGET_HOSTS]: "10.0.0.0/8,hooks.internal",
      [ENV.SECRET_HEADERS]: "X-Api-Key",
      [ENV.SIGNING_SECRET]: SIGNING_SECRET_ARN,
      POWERTOOLS_METRICS_NAMESPACE: "Custom",
    });
  });

  it("tells the orchestrator the operator function's name, the account and the listed Lambda targets", () => {
    const variables = (
      orchestratorFunction(customTemplate).props.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    const operatorFunction = customOrchestrator.operatorFunction.node.defaultChild as CfnElement;
    expect(variables).toMatchObject({
      [ENV.OPERATOR_FUNCTION_NAME]: {
        Ref: Stack.of(operatorFunction).getLogicalId(operatorFunction),
      },
      [ENV.ACCOUNT_ID]: { Ref: "AWS::AccountId" },
      [ENV.LAMBDA_TARGETS]: TARGET_ARN,
    });
  });

  it("honours the concurrency's former prop name, writing the current variable", () => {
    const concurrencyOf = (t: Template) =>
      (orchestratorFunction(t).props.Environment as { Variables: Record<string, unknown> })
        .Variables[ENV.MESSAGE_CONCURRENCY];
    expect(concurrencyOf(template)).toBe("10");
    const app = new App();
    const renamed = new Stack(app, "FormerName");
    new RetryOrchestrator(renamed, "Ricochet", { recordConcurrency: 3 });
    expect(concurrencyOf(Template.fromStack(renamed))).toBe("3");
  });

  it("tells the functions the breakers are off unless the props turn them on", () => {
    const breakerOf = (t: Template) =>
      (orchestratorFunction(t).props.Environment as { Variables: Record<string, unknown> })
        .Variables[ENV.CIRCUIT_BREAKER];
    expect(breakerOf(template)).toBe("off");
    const app = new App();
    const on = new Stack(app, "WithBreakers");
    new RetryOrchestrator(on, "Ricochet", { circuitBreaker: { minimumCalls: 3 } });
    expect(JSON.parse(String(breakerOf(Template.fromStack(on))))).toEqual({
      ...DEFAULT_BREAKER_SETTINGS,
      minimumCalls: 3,
    });
  });

  it("passes the per-target settings to the functions, none when the props give none", () => {
    const targetsOf = (t: Template) =>
      (orchestratorFunction(t).props.Environment as { Variables: Record<string, unknown> })
        .Variables[ENV.TARGETS];
    expect(targetsOf(template)).toBe("");
    const app = new App();
    const limited = new Stack(app, "WithLimits");
    const targets = {
      overrides: { "group:tenant-7": { maxConcurrentCalls: 2 } },
      groups: { "tenant-7": ["http:https://hooks.tenant7.example:443"] },
    };
    new RetryOrchestrator(limited, "Ricochet", { targets });
    expect(JSON.parse(String(targetsOf(Template.fromStack(limited))))).toEqual(targets);
  });

  it("passes the policy limits to the functions, the defaults when none are given", () => {
    const limitsOf = (t: Template) =>
      JSON.parse(
        String(
          (orchestratorFunction(t).props.Environment as { Variables: Record<string, unknown> })
            .Variables[ENV.POLICY_LIMITS],
        ),
      );
    expect(limitsOf(template)).toEqual({ maxAttempts: 25, minBaseDelaySeconds: 1 });
    expect(limitsOf(customTemplate)).toEqual({ maxAttempts: 10, minBaseDelaySeconds: 1 });
  });

  it("alarms on dead-letter depth and on the age of the oldest ingress message", () => {
    const { ingressId, deadLetterId } = queues(template);
    const queueDimension = (id: string) => [
      { Name: "QueueName", Value: { "Fn::GetAtt": [id, "QueueName"] } },
    ];
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: queueDimension(deadLetterId),
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "ApproximateAgeOfOldestMessage",
      Dimensions: queueDimension(ingressId),
      Threshold: 900,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "Errors",
      Namespace: "AWS/Lambda",
    });
  });

  it("alarms when a breaker stays open longer than breakerOpenAlarmAge (15 min by default), only with breakers on", () => {
    const breakerAlarms = (t: Template) =>
      t.findResources("AWS::CloudWatch::Alarm", {
        Properties: { MetricName: MetricName.BREAKER_OPEN_AGE },
      });
    expect(Object.keys(breakerAlarms(template))).toHaveLength(0);
    const alarmOf = (props: RetryOrchestratorProps) => {
      const on = new Stack(new App(), "WithBreakerAlarm");
      new RetryOrchestrator(on, "Ricochet", { circuitBreaker: true, ...props });
      return only(breakerAlarms(Template.fromStack(on)) as Resources).props;
    };

    expect(alarmOf({})).toMatchObject({
      Namespace: "Ricochet",
      Dimensions: [{ Name: "service", Value: "ricochet" }],
      Statistic: "Maximum",
      Threshold: 15 * 60_000,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      TreatMissingData: "notBreaching",
    });
    expect(alarmOf({ breakerOpenAlarmAge: Duration.minutes(40) }).Threshold).toBe(40 * 60_000);
  });

  it("names the targets whose outcomes get their own metric dimension, at most 20", () => {
    const on = new Stack(new App(), "WithTargetMetrics");
    new RetryOrchestrator(on, "Ricochet", { targetMetrics: ["group:acme", "lambda:billing"] });
    const variables = (
      orchestratorFunction(Template.fromStack(on)).props.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(variables[ENV.TARGET_METRICS]).toBe("group:acme,lambda:billing");
    expect(() =>
      resolveRetryOrchestratorProps({
        targetMetrics: Array.from({ length: 21 }, (_, i) => `group:g${i}`),
      }),
    ).toThrow(/targetMetrics/);
  });

  it("charts the orchestrator's EMF metrics on the dashboard", () => {
    const dashboard = only(template.findResources("AWS::CloudWatch::Dashboard") as Resources);
    const body = JSON.stringify(dashboard.props.DashboardBody);
    for (const metric of Object.values(MetricName)) {
      expect(body).toContain(`\\"${metric}\\"`);
    }
  });

  it.each(Object.values(STACK_OUTPUTS))("outputs %s for the CLI", (key) => {
    expect(Object.keys(template.findOutputs(key))).toEqual([key]);
  });

  it("outputs the operator function under its former key too, and keeps its logical id", () => {
    const [current, former] = [
      STACK_OUTPUTS.OPERATOR_FUNCTION_NAME,
      STACK_OUTPUTS.REDRIVE_FUNCTION_NAME,
    ].map((key) => template.findOutputs(key)[key]?.Value);
    const operatorFunction = stack.orchestrator.operatorFunction.node.defaultChild as CfnElement;
    const logicalId = stack.getLogicalId(operatorFunction);

    expect(current).toEqual({ Ref: logicalId });
    expect(former).toEqual(current);
    // Renaming the construct id would replace every deployed operator function.
    expect(logicalId).toMatch(/^OrchestratorRedrive[0-9A-F]{8}$/);
    expect(stack.orchestrator.redriveFunction).toBe(stack.orchestrator.operatorFunction);
  });
});

describe("RetryOrchestrator permissions", () => {
  it("grantSubmit allows SendMessage on the ingress queue only", () => {
    const { ingressId } = queues(template);
    const { Statement } = policyOf(template, producer) as {
      Statement: { Effect: string; Action: string[]; Resource: unknown }[];
    };
    expect(Statement).toHaveLength(1);
    expect(Statement[0]?.Effect).toBe("Allow");
    expect([...(Statement[0]?.Action ?? [])].sort()).toEqual([
      "sqs:GetQueueAttributes",
      "sqs:GetQueueUrl",
      "sqs:SendMessage",
    ]);
    expect(Statement[0]?.Resource).toEqual({ "Fn::GetAtt": [ingressId, "Arn"] });
  });

  it("grantSubmit also allows the KMS key when the queues use one", () => {
    expect(JSON.stringify(policyOf(customTemplate, customProducer))).toMatch(/kms:GenerateDataKey/);
  });

  type Statement = { Action: string | string[]; Resource: unknown };
  const actionsOf = (document: unknown): string[] =>
    [
      ...new Set(
        (document as { Statement: Statement[] }).Statement.flatMap((statement) => statement.Action),
      ),
    ].sort();

  it("grantRedrive allows invoking redrive and reading the table", () => {
    const document = policyOf(template, operator) as { Statement: unknown[] };
    const redriveId = Object.keys(
      template.findResources("AWS::Lambda::Function", {
        Properties: { Description: Match.stringLikeRegexp("dead-lettered") },
      }),
    )[0];
    expect(document.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: "lambda:InvokeFunction",
          Resource: expect.arrayContaining([{ "Fn::GetAtt": [redriveId, "Arn"] }]),
        }),
        expect.objectContaining({
          Action: expect.arrayContaining(["dynamodb:GetItem", "dynamodb:Query"]),
        }),
      ]),
    );
    expect(JSON.stringify(document)).not.toMatch(/dynamodb:PutItem/);
  });

  // Dead-letter copies carry producers' headers in clear text; records are redacted.
  it.each([
    ["SQS-managed", () => policyOf(template, operator)],
    ["KMS", () => policyOf(customTemplate, customOperator)],
  ])("grantRedrive allows nothing on any queue (%s encryption)", (_, document) => {
    expect(JSON.stringify(document())).not.toMatch(/sqs:/);
  });

  it("grantDeadLetterRead allows reading the dead-letter queue without consuming it, and the records to check copies against", () => {
    const { deadLetterId } = queues(template);
    const document = policyOf(template, reader) as { Statement: Statement[] };
    expect(document.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Resource: { "Fn::GetAtt": [deadLetterId, "Arn"] } }),
        expect.objectContaining({ Action: expect.arrayContaining(["dynamodb:GetItem"]) }),
      ]),
    );
    expect(actionsOf(document).filter((a) => a.startsWith("sqs:"))).toEqual([
      "sqs:ChangeMessageVisibility",
      "sqs:GetQueueAttributes",
      "sqs:GetQueueUrl",
      "sqs:ReceiveMessage",
    ]);
    expect(JSON.stringify(document)).not.toMatch(/dynamodb:(PutItem|UpdateItem|DeleteItem)/);
  });

  it("grantDeadLetterRead also allows decrypting with the queues' KMS key", () => {
    const document = policyOf(customTemplate, customReader);
    expect(actionsOf(document)).toEqual(expect.arrayContaining(["kms:Decrypt"]));
    expect(JSON.stringify(document)).not.toMatch(/sqs:DeleteMessage|lambda:|dynamodb:PutItem/);
  });

  it("grantDirectRedrive adds what the CLI's in-process redrive needs: read, consume, send, write", () => {
    const app = new App();
    const own = new Stack(app, "Direct");
    const key = new Key(own, "Key", { enableKeyRotation: true });
    const orchestrator = new RetryOrchestrator(own, "Retries", {
      encryption: OrchestratorEncryption.kms(key),
    });
    const oncall = new Role(own, "Oncall", { assumedBy: new AccountRootPrincipal() });
    orchestrator.grantDirectRedrive(oncall);

    expect(actionsOf(policyOf(Template.fromStack(own), oncall))).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:BatchWriteItem",
      "dynamodb:ConditionCheckItem",
      "dynamodb:DeleteItem",
      "dynamodb:DescribeTable",
      "dynamodb:GetItem",
      "dynamodb:GetRecords",
      "dynamodb:GetShardIterator",
      "dynamodb:PutItem",
      "dynamodb:Query",
      "dynamodb:Scan",
      "dynamodb:UpdateItem",
      "kms:Decrypt",
      "kms:DescribeKey",
      "kms:Encrypt",
      "kms:GenerateDataKey*",
      "kms:ReEncrypt*",
      "lambda:InvokeFunction",
      "sqs:ChangeMessageVisibility",
      "sqs:DeleteMessage",
      "sqs:GetQueueAttributes",
      "sqs:GetQueueUrl",
      "sqs:ReceiveMessage",
      "sqs:SendMessage",
    ]);
    const senders = internalSendGuard(Template.fromStack(own))?.Condition.ArnNotEquals[
      "aws:PrincipalArn"
    ];
    expect(senders).toContainEqual(roleArnOf(oncall));
  });

  it("lets the orchestrator invoke only the listed Lambda targets", () => {
    const document = JSON.stringify(
      policyOf(customTemplate, customOrchestrator.orchestratorFunction.role),
    );
    expect(document).toContain(
      `{"Action":"lambda:InvokeFunction","Effect":"Allow","Resource":"${TARGET_ARN}"}`,
    );
    expect(
      JSON.stringify(policyOf(template, stack.orchestrator.orchestratorFunction.role)),
    ).not.toContain("lambda:InvokeFunction");
  });

  it("lets the orchestrator read the signing secret", () => {
    const document = JSON.stringify(
      policyOf(customTemplate, customOrchestrator.orchestratorFunction.role),
    );
    expect(document).toContain("secretsmanager:GetSecretValue");
    expect(document).toContain(SIGNING_SECRET_ARN);
  });
});

describe("RetryOrchestrator props validation", () => {
  const problemsOf = (props: RetryOrchestratorProps): string => {
    try {
      resolveRetryOrchestratorProps(props);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      return (error as Error).message;
    }
    return "";
  };

  it("reports every conflict in one error", () => {
    const message = problemsOf({
      batchSize: 50,
      maxBatchingWindow: Duration.seconds(0),
      maxConcurrency: 1,
      functionTimeout: Duration.minutes(20),
      ingressRetention: Duration.days(14),
      deadLetterRetention: Duration.days(7),
      hopSeconds: 901,
      messageConcurrency: 0,
      defaultPolicy: { baseDelaySeconds: 600, maxDelaySeconds: 60 },
      policyLimits: { minBaseDelaySeconds: -1 },
      circuitBreaker: { failureRateThreshold: 0, minimumCalls: 2.5 },
      targets: {
        overrides: { "http:https://partner.example": {}, "group:t": { maxConcurrentCalls: 0 } },
        groups: { t: ["http:https://t.example:443"] },
      },
    });
    for (const path of [
      "targets.overrides.http:https://partner.example",
      "targets.overrides.group:t.maxConcurrentCalls",
      "circuitBreaker.failureRateThreshold",
      "circuitBreaker.minimumCalls",
      "batchSize",
      "maxConcurrency",
      "functionTimeout",
      "deadLetterRetention",
      "hopSeconds",
      "messageConcurrency",
      "defaultPolicy.baseDelaySeconds",
      "policyLimits.minBaseDelaySeconds",
    ]) {
      expect(message).toContain(`${path}:`);
    }
  });

  it.each([
    ["left out", undefined, undefined],
    ["false", false, undefined],
    ["true", true, DEFAULT_BREAKER_SETTINGS],
    ["some overrides", { minimumCalls: 3 }, { ...DEFAULT_BREAKER_SETTINGS, minimumCalls: 3 }],
  ] as const)("resolves circuitBreaker %s", (_name, prop, expected) => {
    expect(resolveRetryOrchestratorProps({ circuitBreaker: prop }).circuitBreaker).toEqual(
      expected,
    );
  });

  it("requires the default policy to lie within the policy limits, naming every conflict", () => {
    const message = problemsOf({
      defaultPolicy: { maxAttempts: 12, baseDelaySeconds: 2 },
      policyLimits: { maxAttempts: 10, minBaseDelaySeconds: 5 },
    });
    expect(message).toContain(
      "defaultPolicy.maxAttempts: 12 is above the ceiling policyLimits.maxAttempts (10)",
    );
    expect(message).toContain(
      "defaultPolicy.baseDelaySeconds: 2 is below the floor policyLimits.minBaseDelaySeconds (5)",
    );
    expect(message.match(/invalid RetryOrchestrator props/g)).toHaveLength(1);
  });

  it("judges the built-in default policy against the limits too", () => {
    expect(problemsOf({ policyLimits: { maxAttempts: 5 } })).toContain(
      "defaultPolicy.maxAttempts: 8 is above the ceiling policyLimits.maxAttempts (5)",
    );
    expect(problemsOf({ policyLimits: { maxAttempts: 8, minBaseDelaySeconds: 5 } })).toBe("");
  });

  it("fills in the default limits field by field", () => {
    expect(resolveRetryOrchestratorProps().policyLimits).toEqual({
      maxAttempts: 25,
      minBaseDelaySeconds: 1,
    });
    expect(
      resolveRetryOrchestratorProps({ policyLimits: { minBaseDelaySeconds: 0 } }).policyLimits,
    ).toEqual({ maxAttempts: 25, minBaseDelaySeconds: 0 });
  });

  it("throws from the construct before creating anything", () => {
    const invalid = new Stack(new App(), "Invalid");
    expect(() => new RetryOrchestrator(invalid, "Retries", { maxConcurrency: 1 })).toThrow(
      /maxConcurrency: must be at least 2/,
    );
    expect(invalid.node.children).toHaveLength(0);
  });

  it.each<[string, RetryOrchestratorProps, string]>([
    [
      "a batch above 10 without a window",
      { batchSize: 11, maxBatchingWindow: Duration.seconds(0) },
      "batchSize",
    ],
    [
      "dead-letter retention equal to ingress",
      { ingressRetention: Duration.days(4), deadLetterRetention: Duration.days(4) },
      "deadLetterRetention",
    ],
    ["max concurrency 1", { maxConcurrency: 1 }, "maxConcurrency"],
    ["a timeout above 900 s", { functionTimeout: Duration.seconds(901) }, "functionTimeout"],
    ["a fractional timeout", { functionTimeout: Duration.millis(1500) }, "functionTimeout"],
    ["hop of 0 s", { hopSeconds: 0 }, "hopSeconds"],
    ["message concurrency 101", { messageConcurrency: 101 }, "messageConcurrency"],
    [
      "the renamed concurrency under both names, differing",
      { messageConcurrency: 4, recordConcurrency: 5 },
      "recordConcurrency",
    ],
    ["an unknown policy field", { defaultPolicy: { maxAttempts: 0 } }, "defaultPolicy.maxAttempts"],
    ["a ceiling of 0 attempts", { policyLimits: { maxAttempts: 0 } }, "policyLimits.maxAttempts"],
    [
      "a fractional base delay floor",
      { policyLimits: { minBaseDelaySeconds: 0.5 } },
      "policyLimits.minBaseDelaySeconds",
    ],
    [
      "a host with a comma",
      { allowedTargetHosts: ["a.example,b.example"] },
      "allowedTargetHosts.0",
    ],
    ["an invalid header name", { secretHeaders: ["X Key"] }, "secretHeaders.0"],
    [
      "a non-Lambda target ARN",
      { lambdaTargets: ["arn:aws:sqs:eu-west-1:123456789012:q"] },
      "lambdaTargets.0",
    ],
  ])("rejects %s", (_, props, path) => {
    expect(problemsOf(props)).toContain(`${path}:`);
  });

  it.each([
    ["maxConcurency", "maxConcurrency"],
    ["batchsize", "batchSize"],
    ["circuitBreakers", "circuitBreaker"],
  ])("refuses the misspelt prop %s, naming %s", (misspelt, meant) => {
    const props = { [misspelt]: 5 } as RetryOrchestratorProps;
    expect(problemsOf(props)).toContain(
      `${misspelt}: is not a recognized field; did you mean ${meant}?`,
    );
  });

  it("refuses a prop that resembles none without guessing", () => {
    expect(problemsOf({ colour: "blue" } as RetryOrchestratorProps)).toContain(
      "colour: is not a recognized field",
    );
    expect(problemsOf({ colour: "blue" } as RetryOrchestratorProps)).not.toContain("did you mean");
  });

  it("accepts a batch above 10 with a batching window", () => {
    expect(problemsOf({ batchSize: 100, maxBatchingWindow: Duration.seconds(5) })).toBe("");
  });

  it("accepts exactly the retention pairs where the dead-letter queue keeps messages longer", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 14 }), fc.integer({ min: 1, max: 14 }), (a, b) => {
        const message = problemsOf({
          ingressRetention: Duration.days(a),
          deadLetterRetention: Duration.days(b),
        });
        expect(message.includes("deadLetterRetention")).toBe(b <= a);
      }),
    );
  });
});

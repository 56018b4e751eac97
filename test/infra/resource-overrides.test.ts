import { App, Duration, RemovalPolicy, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { AttributeType, BillingMode } from "aws-cdk-lib/aws-dynamodb";
import { Runtime } from "aws-cdk-lib/aws-lambda";
import { beforeAll, describe, expect, it } from "vitest";
import { ENV } from "../../lib/contract/environment.js";
import { ConfigurationError } from "../../lib/core/errors.js";
import { RetryOrchestrator, TABLE_KEYS } from "../../lib/infra/retry-orchestrator.js";
import {
  type RetryOrchestratorProps,
  resolveRetryOrchestratorProps,
  VISIBILITY_TIMEOUT_FACTOR,
} from "../../lib/infra/retry-orchestrator-props.js";

/*
 * The escape hatch: a deployment's props for the underlying resources are merged over
 * Ricochet's, and the ones that would break a guarantee are refused before anything is built.
 */

type Resources = Record<string, { Properties: Record<string, unknown> }>;

let template: Template;

beforeAll(() => {
  const stack = new Stack(new App(), "Overridden");
  new RetryOrchestrator(stack, "Retries", {
    functionTimeout: Duration.seconds(45),
    ingressQueueProps: { queueName: "orders-ingress", receiveMessageWaitTime: Duration.seconds(5) },
    deadLetterQueueProps: { queueName: "orders-dead-letters" },
    tableProps: { tableName: "orders-attempts", deletionProtection: true },
    orchestratorFunctionProps: {
      functionName: "orders-orchestrator",
      reservedConcurrentExecutions: 7,
    },
  });
  template = Template.fromStack(stack);
});

describe("RetryOrchestrator's resource overrides", () => {
  it("sets what the deployment asked for on each resource", () => {
    template.hasResourceProperties("AWS::SQS::Queue", {
      QueueName: "orders-ingress",
      ReceiveMessageWaitTimeSeconds: 5,
    });
    template.hasResourceProperties("AWS::SQS::Queue", { QueueName: "orders-dead-letters" });
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      TableName: "orders-attempts",
      DeletionProtectionEnabled: true,
    });
    template.hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: "orders-orchestrator",
      ReservedConcurrentExecutions: 7,
    });
  });

  it("keeps Ricochet's guarantees beside them", () => {
    template.hasResourceProperties("AWS::SQS::Queue", {
      QueueName: "orders-ingress",
      VisibilityTimeout: 45 * VISIBILITY_TIMEOUT_FACTOR,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: Match.anyValue() }),
    });
    template.hasResourceProperties("AWS::DynamoDB::Table", {
      TableName: "orders-attempts",
      KeySchema: [{ AttributeName: TABLE_KEYS.PARTITION_KEY, KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: TABLE_KEYS.TTL_ATTRIBUTE, Enabled: true },
    });
    const functions = template.findResources("AWS::Lambda::Function", {
      Properties: { FunctionName: "orders-orchestrator" },
    }) as Resources;
    const [orchestrator] = Object.values(functions);
    expect(orchestrator?.Properties).toMatchObject({
      Runtime: Runtime.NODEJS_24_X.name,
      Timeout: 45,
      Environment: {
        Variables: expect.objectContaining({ [ENV.HOP_SECONDS]: expect.any(String) }),
      },
    });
  });

  it.each<[string, RetryOrchestratorProps]>([
    [
      "ingressQueueProps.visibilityTimeout",
      { ingressQueueProps: { visibilityTimeout: Duration.seconds(30) } },
    ],
    ["ingressQueueProps.fifo", { ingressQueueProps: { fifo: true } }],
    ["ingressQueueProps.enforceSSL", { ingressQueueProps: { enforceSSL: false } }],
    [
      "deadLetterQueueProps.retentionPeriod",
      { deadLetterQueueProps: { retentionPeriod: Duration.days(1) } },
    ],
    [
      "tableProps.partitionKey",
      { tableProps: { partitionKey: { name: "pk", type: AttributeType.STRING } } },
    ],
    ["tableProps.sortKey", { tableProps: { sortKey: { name: "sk", type: AttributeType.STRING } } }],
    [
      "tableProps.pointInTimeRecoverySpecification",
      { tableProps: { pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: false } } },
    ],
    ["tableProps.removalPolicy", { tableProps: { removalPolicy: RemovalPolicy.DESTROY } }],
    [
      "orchestratorFunctionProps.timeout",
      { orchestratorFunctionProps: { timeout: Duration.seconds(5) } },
    ],
    [
      "orchestratorFunctionProps.environment",
      { orchestratorFunctionProps: { environment: { X: "1" } } },
    ],
    [
      "orchestratorFunctionProps.runtime",
      { orchestratorFunctionProps: { runtime: Runtime.NODEJS_22_X } },
    ],
  ])("refuses %s, naming it and the reason", (path, props) => {
    expect(() => resolveRetryOrchestratorProps(props)).toThrow(ConfigurationError);
    expect(() => resolveRetryOrchestratorProps(props)).toThrow(
      new RegExp(`${path.replace(".", "\\.")}: cannot be overridden: it \\S`),
    );
  });

  it("accepts a provisioned table, whose capacity is the deployment's to choose", () => {
    expect(() =>
      resolveRetryOrchestratorProps({
        tableProps: { billingMode: BillingMode.PROVISIONED, readCapacity: 5, writeCapacity: 5 },
      }),
    ).not.toThrow();
  });

  it("builds nothing when an override is refused", () => {
    const stack = new Stack(new App(), "Refused");
    expect(
      () => new RetryOrchestrator(stack, "Retries", { tableProps: { timeToLiveAttribute: "ttl" } }),
    ).toThrow(/tableProps\.timeToLiveAttribute/);
    expect(stack.node.children).toHaveLength(0);
  });
});

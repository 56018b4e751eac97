import {
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
} from "@aws-sdk/client-dynamodb";
import {
  GetFunctionConfigurationCommand,
  type LambdaClient,
  ListEventSourceMappingsCommand,
} from "@aws-sdk/client-lambda";
import { GetQueueAttributesCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { LOCAL_REGION } from "../../lib/contract/local-identity.js";
import type { CfnResource, CfnTemplate } from "../../lib/local/synthesize-template.js";
import { MOTO_ACCOUNT, type MotoStack } from "./create-stack-in-moto.js";

/*
 * What a stack's template asked for, against what the CloudFormation that created it reports it
 * built, setting by setting, as rows of one table. Values are compared as text; a reference is
 * shown as the logical id it names on both sides, so the table reads the same on every run.
 */

/** One setting of one resource: what the template asked for and what was built. */
export interface StackRow {
  readonly resource: string;
  readonly setting: string;
  readonly asked: string;
  readonly built: string;
}

/** The AWS clients the readback asks, all pointed at the CloudFormation's endpoint. */
export interface ReadbackClients {
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  readonly lambda: LambdaClient;
}

/** What one resource type's rows are read from. */
interface ReadbackContext {
  readonly clients: ReadbackClients;
  readonly built: MotoStack;
  /** The logical id of the resource an ARN or physical id belongs to, for references. */
  logicalIdOf(physicalOrArn: string | undefined): string;
}

const text = (value: unknown): string =>
  value === undefined || value === null
    ? "(none)"
    : typeof value === "string"
      ? value
      : JSON.stringify(value);

/** The pseudo parameters a template may `Ref`, as the CloudFormation resolves them. */
const PSEUDO: Readonly<Record<string, string>> = {
  "AWS::AccountId": MOTO_ACCOUNT,
  "AWS::Region": LOCAL_REGION,
};

/** The logical id `{ Ref }` or `{ Fn::GetAtt: [id, …] }` names (a pseudo parameter's value). */
const referenced = (value: unknown): string => {
  const ref = value as { Ref?: string; "Fn::GetAtt"?: readonly string[] } | undefined;
  const id = ref?.Ref ?? ref?.["Fn::GetAtt"]?.[0];
  return id === undefined ? text(value) : (PSEUDO[id] ?? id);
};

const row = (resource: string, setting: string, asked: unknown, built: unknown): StackRow => ({
  resource,
  setting,
  asked: text(asked),
  built: text(built),
});

type Props = Readonly<Record<string, unknown>>;
type RowReader = (id: string, props: Props, context: ReadbackContext) => Promise<StackRow[]>;

const queueAttributes = async (context: ReadbackContext, id: string) =>
  (
    await context.clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: context.built.physicalId(id),
        AttributeNames: ["All"],
      }),
    )
  ).Attributes ?? {};

const queueRows: RowReader = async (id, props, context) => {
  const attributes = await queueAttributes(context, id);
  const asked = props.RedrivePolicy as
    | { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown }
    | undefined;
  const built =
    attributes.RedrivePolicy === undefined
      ? undefined
      : (JSON.parse(attributes.RedrivePolicy) as {
          deadLetterTargetArn?: string;
          maxReceiveCount?: unknown;
        });
  return [
    row(
      id,
      "VisibilityTimeout",
      props.VisibilityTimeout ?? 30,
      Number(attributes.VisibilityTimeout),
    ),
    row(
      id,
      "MessageRetentionPeriod",
      props.MessageRetentionPeriod,
      Number(attributes.MessageRetentionPeriod),
    ),
    row(
      id,
      "SqsManagedSseEnabled",
      props.SqsManagedSseEnabled,
      attributes.SqsManagedSseEnabled === "true",
    ),
    row(
      id,
      "RedrivePolicy.maxReceiveCount",
      asked?.maxReceiveCount,
      built === undefined ? undefined : Number(built.maxReceiveCount),
    ),
    row(
      id,
      "RedrivePolicy.deadLetterTarget",
      asked === undefined ? undefined : referenced(asked.deadLetterTargetArn),
      built === undefined ? undefined : context.logicalIdOf(built.deadLetterTargetArn),
    ),
  ];
};

/** A policy's statements, each as its Sid (or effect and action), in order. */
const statements = (document: unknown): string[] =>
  (
    (document as { Statement?: readonly Record<string, unknown>[] } | undefined)?.Statement ?? []
  ).map((s) => text(s.Sid ?? `${text(s.Effect)} ${text(s.Action)}`));

const queuePolicyRows: RowReader = async (id, props, context) => {
  const queues = (props.Queues as readonly unknown[] | undefined) ?? [];
  return Promise.all(
    queues.map(async (queue) => {
      const queueId = referenced(queue);
      const policy = (await queueAttributes(context, queueId)).Policy;
      return row(
        id,
        `statements on ${queueId}`,
        statements(props.PolicyDocument).join(", "),
        policy === undefined ? undefined : statements(JSON.parse(policy)).join(", "),
      );
    }),
  );
};

const keys = (schema: readonly { AttributeName?: string; KeyType?: string }[] | undefined) =>
  (schema ?? []).map((k) => `${k.AttributeName} ${k.KeyType}`).join(", ");

const tableRows: RowReader = async (id, props, context) => {
  const TableName = context.built.physicalId(id);
  const { dynamodb } = context.clients;
  const [{ Table }, ttl, backups] = await Promise.all([
    dynamodb.send(new DescribeTableCommand({ TableName })),
    dynamodb.send(new DescribeTimeToLiveCommand({ TableName })),
    dynamodb.send(new DescribeContinuousBackupsCommand({ TableName })),
  ]);
  type Index = { IndexName?: string; KeySchema?: Parameters<typeof keys>[0] };
  const indexes = (list: readonly Index[] | undefined) =>
    (list ?? []).map((i) => `${i.IndexName}: ${keys(i.KeySchema)}`).join("; ");
  const askedTtl = props.TimeToLiveSpecification as
    | { AttributeName?: string; Enabled?: boolean }
    | undefined;
  const askedPitr = props.PointInTimeRecoverySpecification as
    | { PointInTimeRecoveryEnabled?: boolean }
    | undefined;
  const builtTtl = ttl.TimeToLiveDescription;
  return [
    row(
      id,
      "KeySchema",
      keys(props.KeySchema as Parameters<typeof keys>[0]),
      keys(Table?.KeySchema),
    ),
    row(
      id,
      "GlobalSecondaryIndexes",
      indexes(props.GlobalSecondaryIndexes as Index[]),
      indexes(Table?.GlobalSecondaryIndexes),
    ),
    row(id, "BillingMode", props.BillingMode, Table?.BillingModeSummary?.BillingMode),
    row(
      id,
      "TimeToLive",
      askedTtl?.Enabled === true ? askedTtl.AttributeName : undefined,
      builtTtl?.TimeToLiveStatus === "ENABLED" ? builtTtl.AttributeName : undefined,
    ),
    row(
      id,
      "PointInTimeRecovery",
      askedPitr?.PointInTimeRecoveryEnabled === true,
      backups.ContinuousBackupsDescription?.PointInTimeRecoveryDescription
        ?.PointInTimeRecoveryStatus === "ENABLED",
    ),
  ];
};

const mappingRows: RowReader = async (id, props, context) => {
  const functionId = referenced(props.FunctionName);
  const { EventSourceMappings } = await context.clients.lambda.send(
    new ListEventSourceMappingsCommand({ FunctionName: context.built.physicalId(functionId) }),
  );
  const sourceId = referenced(props.EventSourceArn);
  const built = (EventSourceMappings ?? []).find(
    (m) => context.logicalIdOf(m.EventSourceArn) === sourceId,
  );
  const scaling = props.ScalingConfig as { MaximumConcurrency?: number } | undefined;
  return [
    row(id, "EventSource", sourceId, built === undefined ? undefined : sourceId),
    row(id, "BatchSize", props.BatchSize, built?.BatchSize),
    row(
      id,
      "MaximumBatchingWindowInSeconds",
      props.MaximumBatchingWindowInSeconds,
      built?.MaximumBatchingWindowInSeconds,
    ),
    row(id, "FunctionResponseTypes", props.FunctionResponseTypes, built?.FunctionResponseTypes),
    row(
      id,
      "ScalingConfig.MaximumConcurrency",
      scaling?.MaximumConcurrency,
      built?.ScalingConfig?.MaximumConcurrency,
    ),
  ];
};

/** A function's variables as the template gives them: literals as text, references by id. */
const askedVariables = (props: Props): Record<string, string> => {
  const variables = (props.Environment as { Variables?: Props } | undefined)?.Variables ?? {};
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [
      name,
      typeof value === "string" ? value : referenced(value),
    ]),
  );
};

const functionRows: RowReader = async (id, props, context) => {
  const built = await context.clients.lambda.send(
    new GetFunctionConfigurationCommand({ FunctionName: context.built.physicalId(id) }),
  );
  const asked = askedVariables(props);
  const builtVariables = built.Environment?.Variables ?? {};
  const variableRows = Object.entries(asked).map(([name, value]) => {
    const literal = typeof (props.Environment as { Variables: Props }).Variables[name] === "string";
    const got = builtVariables[name];
    return row(
      id,
      `Environment.${name}`,
      value,
      literal ? got : got === undefined ? undefined : context.logicalIdOf(got),
    );
  });
  const tracing = props.TracingConfig as { Mode?: string } | undefined;
  const logging = props.LoggingConfig as { LogFormat?: string } | undefined;
  return [
    row(id, "Runtime", props.Runtime, built.Runtime),
    row(id, "Handler", props.Handler, built.Handler),
    row(id, "Timeout", props.Timeout, built.Timeout),
    row(id, "MemorySize", props.MemorySize, built.MemorySize),
    row(id, "Architectures", props.Architectures, built.Architectures),
    row(id, "TracingConfig.Mode", tracing?.Mode, built.TracingConfig?.Mode),
    row(id, "LoggingConfig.LogFormat", logging?.LogFormat, built.LoggingConfig?.LogFormat),
    ...variableRows,
  ];
};

/** Settings read back for these resource types; every other resource is checked for existence. */
const READERS: Readonly<Record<string, RowReader>> = {
  "AWS::SQS::Queue": queueRows,
  "AWS::SQS::QueuePolicy": queuePolicyRows,
  "AWS::DynamoDB::Table": tableRows,
  "AWS::Lambda::EventSourceMapping": mappingRows,
  "AWS::Lambda::Function": functionRows,
};

/** The ARNs of the stack's queues, so a built ARN can be shown as the logical id it names. */
const queueArns = async (
  template: CfnTemplate,
  clients: ReadbackClients,
  built: MotoStack,
): Promise<Map<string, string>> => {
  const arns = new Map<string, string>();
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== "AWS::SQS::Queue" || !built.resources.has(id)) continue;
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: built.physicalId(id),
        AttributeNames: ["QueueArn"],
      }),
    );
    if (Attributes?.QueueArn !== undefined) arns.set(Attributes.QueueArn, id);
  }
  return arns;
};

/**
 * Every resource of `template`: whether it was built, and for queues, queue policies, the table,
 * event source mappings and functions, each setting asked against the one built.
 */
export const readBackStack = async (
  template: CfnTemplate,
  clients: ReadbackClients,
  built: MotoStack,
): Promise<StackRow[]> => {
  const arns = await queueArns(template, clients, built);
  const byPhysicalId = new Map(
    [...built.resources].map(([id, r]) => [r.PhysicalResourceId ?? "", id]),
  );
  const context: ReadbackContext = {
    clients,
    built,
    logicalIdOf: (value) =>
      value === undefined ? "(none)" : (arns.get(value) ?? byPhysicalId.get(value) ?? value),
  };
  const rows: StackRow[] = [];
  for (const [id, resource] of Object.entries(template.Resources) as [string, CfnResource][]) {
    const exists = built.resources.has(id);
    rows.push(row(id, `built (${resource.Type})`, "yes", exists ? "yes" : "no"));
    const reader = READERS[resource.Type];
    // A queue policy is read from its queues, which exist whether or not the policy was built.
    const readable = exists || resource.Type === "AWS::SQS::QueuePolicy";
    if (readable && reader !== undefined)
      rows.push(...(await reader(id, resource.Properties ?? {}, context)));
  }
  return rows;
};

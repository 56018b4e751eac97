import {
  type AttributeDefinition,
  type BillingMode,
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  type KeySchemaElement,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from "@aws-sdk/client-dynamodb";
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type QueueAttributeName,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { ConfigurationError } from "../core/errors.js";
import type { CfnResource, CfnTemplate } from "./synthesize-template.js";

/** CloudFormation resource types read from the template. */
export const CFN_TYPE = {
  QUEUE: "AWS::SQS::Queue",
  TABLE: "AWS::DynamoDB::Table",
  GLOBAL_TABLE: "AWS::DynamoDB::GlobalTable",
} as const;

/** Queue properties that carry over to a local queue, as SQS attribute names. */
const QUEUE_ATTRIBUTES = [
  "VisibilityTimeout",
  "MessageRetentionPeriod",
  "ReceiveMessageWaitTimeSeconds",
  "DelaySeconds",
  "MaximumMessageSize",
] as const;

interface LocalQueue {
  readonly logicalId: string;
  readonly name: string;
  readonly url: string;
  readonly arn: string;
}

interface LocalTable {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
}

/** What was created (or found) locally for the template's queues and tables. */
export interface ProvisionedResources {
  readonly queues: Readonly<Record<string, LocalQueue>>;
  readonly tables: Readonly<Record<string, LocalTable>>;
  /** Template settings the emulators cannot honour, said once each. */
  readonly notes: readonly string[];
}

export interface ProvisionOptions {
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  /** Prefix of every local name; the logical id follows it. */
  readonly namePrefix?: string;
}

type Props = Readonly<Record<string, unknown>>;

const isRecord = (value: unknown): value is Props =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The logical id a `{ "Fn::GetAtt": [id, attr] }` or `{ Ref: id }` names, if it is one. */
export const referencedLogicalId = (
  value: unknown,
): { id: string; attribute?: string } | undefined => {
  if (!isRecord(value)) return undefined;
  const ref = value.Ref;
  if (typeof ref === "string") return { id: ref };
  const getAtt = value["Fn::GetAtt"];
  if (Array.isArray(getAtt) && typeof getAtt[0] === "string" && typeof getAtt[1] === "string") {
    return { id: getAtt[0], attribute: getAtt[1] };
  }
  return undefined;
};

/**
 * A local resource name from a logical id: SQS and DynamoDB both accept letters, digits, `-` and
 * `_`, and the id's hash suffix keeps two stacks' names apart.
 */
const localName = (prefix: string, logicalId: string): string =>
  `${prefix}-${logicalId}`.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 80);

const resourcesOfType = (template: CfnTemplate, ...types: string[]): [string, CfnResource][] =>
  Object.entries(template.Resources).filter(([, resource]) => types.includes(resource.Type));

/** Queues without a dead-letter target first, so every target ARN exists when it is needed. */
const inDependencyOrder = (queues: [string, CfnResource][]): [string, CfnResource][] => {
  const targetOf = (resource: CfnResource): string | undefined => {
    const policy = resource.Properties?.RedrivePolicy;
    return isRecord(policy) ? referencedLogicalId(policy.deadLetterTargetArn)?.id : undefined;
  };
  const ordered: [string, CfnResource][] = [];
  const placed = new Set<string>();
  let rest = [...queues];
  while (rest.length > 0) {
    const ready = rest.filter(([, r]) => {
      const target = targetOf(r);
      return target === undefined || placed.has(target);
    });
    if (ready.length === 0) {
      throw new ConfigurationError(
        `queues ${rest.map(([id]) => id).join(", ")} name dead-letter targets the template does not define`,
      );
    }
    for (const entry of ready) {
      ordered.push(entry);
      placed.add(entry[0]);
    }
    rest = rest.filter(([id]) => !placed.has(id));
  }
  return ordered;
};

const provisionQueues = async (
  sqs: SQSClient,
  prefix: string,
  template: CfnTemplate,
  notes: Set<string>,
): Promise<Record<string, LocalQueue>> => {
  const queues: Record<string, LocalQueue> = {};
  for (const [logicalId, resource] of inDependencyOrder(
    resourcesOfType(template, CFN_TYPE.QUEUE),
  )) {
    const props = resource.Properties ?? {};
    const attributes: Partial<Record<QueueAttributeName, string>> = {};
    for (const name of QUEUE_ATTRIBUTES) {
      const value = props[name];
      if (value !== undefined) attributes[name] = String(value);
    }
    const redrive = props.RedrivePolicy;
    if (isRecord(redrive)) {
      const target = referencedLogicalId(redrive.deadLetterTargetArn);
      const local = target === undefined ? undefined : queues[target.id];
      if (local === undefined) {
        throw new ConfigurationError(`queue ${logicalId}: cannot resolve its dead-letter target`);
      }
      attributes.RedrivePolicy = JSON.stringify({
        deadLetterTargetArn: local.arn,
        maxReceiveCount: Number(redrive.maxReceiveCount),
      });
    }
    if (props.FifoQueue === true) attributes.FifoQueue = "true";
    if (props.SqsManagedSseEnabled !== undefined || props.KmsMasterKeyId !== undefined) {
      notes.add("queue encryption (SSE) is not applied: the local emulator stores plain text");
    }
    const name = localName(prefix, logicalId) + (props.FifoQueue === true ? ".fifo" : "");
    const created = await sqs.send(
      new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
    );
    const url = created.QueueUrl;
    if (url === undefined) throw new ConfigurationError(`queue ${name}: no URL returned`);
    const described = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }),
    );
    const arn = described.Attributes?.QueueArn;
    if (arn === undefined) throw new ConfigurationError(`queue ${name}: no ARN returned`);
    queues[logicalId] = { logicalId, name, url, arn };
  }
  return queues;
};

const asArray = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** The CreateTable input for a `Table` or `GlobalTable`'s properties. */
const createTableInput = (name: string, props: Props): CreateTableCommandInput => {
  const billingMode = (props.BillingMode as BillingMode | undefined) ?? "PROVISIONED";
  const throughput = isRecord(props.ProvisionedThroughput)
    ? {
        ReadCapacityUnits: Number(props.ProvisionedThroughput.ReadCapacityUnits),
        WriteCapacityUnits: Number(props.ProvisionedThroughput.WriteCapacityUnits),
      }
    : { ReadCapacityUnits: 5, WriteCapacityUnits: 5 };
  const provisioned = billingMode === "PROVISIONED";
  const indexes = asArray<Props>(props.GlobalSecondaryIndexes).map(
    (index): GlobalSecondaryIndex => ({
      IndexName: String(index.IndexName),
      KeySchema: asArray<KeySchemaElement>(index.KeySchema),
      Projection: isRecord(index.Projection) ? index.Projection : { ProjectionType: "ALL" },
      ...(provisioned ? { ProvisionedThroughput: throughput } : {}),
    }),
  );
  return {
    TableName: name,
    KeySchema: asArray<KeySchemaElement>(props.KeySchema),
    AttributeDefinitions: asArray<AttributeDefinition>(props.AttributeDefinitions),
    BillingMode: billingMode,
    ...(provisioned ? { ProvisionedThroughput: throughput } : {}),
    ...(indexes.length > 0 ? { GlobalSecondaryIndexes: indexes } : {}),
  };
};

const provisionTables = async (
  dynamodb: DynamoDBClient,
  prefix: string,
  template: CfnTemplate,
  notes: Set<string>,
): Promise<Record<string, LocalTable>> => {
  const tables: Record<string, LocalTable> = {};
  for (const [logicalId, resource] of resourcesOfType(
    template,
    CFN_TYPE.TABLE,
    CFN_TYPE.GLOBAL_TABLE,
  )) {
    const props = resource.Properties ?? {};
    const name = localName(prefix, logicalId);
    try {
      await dynamodb.send(new CreateTableCommand(createTableInput(name, props)));
    } catch (error) {
      // Reuse: a LocalStack that outlives this process keeps the table of a previous run.
      if (!(error instanceof ResourceInUseException)) throw error;
    }
    const ready = await waitUntilTableExists(
      { client: dynamodb, maxWaitTime: 60 },
      { TableName: name },
    );
    const arn =
      ready.reason?.Table?.TableArn ?? `arn:aws:dynamodb:local:000000000000:table/${name}`;
    const ttl = props.TimeToLiveSpecification;
    if (isRecord(ttl) && ttl.Enabled === true && typeof ttl.AttributeName === "string") {
      const current = await dynamodb.send(new DescribeTimeToLiveCommand({ TableName: name }));
      if (current.TimeToLiveDescription?.TimeToLiveStatus !== "ENABLED") {
        await dynamodb.send(
          new UpdateTimeToLiveCommand({
            TableName: name,
            TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: true },
          }),
        );
      }
      notes.add("TTL is set, but DynamoDB Local never deletes expired items");
    }
    if (props.PointInTimeRecoverySpecification !== undefined) {
      notes.add("point-in-time recovery is skipped: DynamoDB Local does not support it");
    }
    if (props.SSESpecification !== undefined) {
      notes.add("table encryption settings are skipped: DynamoDB Local ignores them");
    }
    tables[logicalId] = { logicalId, name, arn };
  }
  return tables;
};

/**
 * Creates the template's SQS queues and DynamoDB tables on the local endpoints, from the template
 * alone, so the local shape cannot drift from what is deployed. Existing resources of the same
 * name are reused.
 * @throws ConfigurationError when the template references a resource it does not define.
 */
export const provisionFromTemplate = async (
  template: CfnTemplate,
  options: ProvisionOptions,
): Promise<ProvisionedResources> => {
  const prefix = options.namePrefix ?? "ricochet-dev";
  const notes = new Set<string>();
  const queues = await provisionQueues(options.sqs, prefix, template, notes);
  const tables = await provisionTables(options.dynamodb, prefix, template, notes);
  return { queues, tables, notes: [...notes] };
};

/**
 * The local value a template reference stands for: a queue's `Ref` is its URL, a table's its name,
 * `Fn::GetAtt … Arn` the ARN and `QueueName`/`QueueUrl` what they say. Plain strings pass through.
 * @throws ConfigurationError for a reference to something that was not provisioned.
 */
export const resolveLocalReference = (value: unknown, local: ProvisionedResources): string => {
  if (typeof value === "string") return value;
  const ref = referencedLogicalId(value);
  if (ref !== undefined) {
    const queue = local.queues[ref.id];
    const table = local.tables[ref.id];
    if (queue !== undefined) {
      if (ref.attribute === undefined || ref.attribute === "QueueUrl") return queue.url;
      if (ref.attribute === "Arn") return queue.arn;
      if (ref.attribute === "QueueName") return queue.name;
    }
    if (table !== undefined) {
      if (ref.attribute === undefined) return table.name;
      if (ref.attribute === "Arn") return table.arn;
    }
  }
  throw new ConfigurationError(`cannot resolve ${JSON.stringify(value)} to a local resource`);
};

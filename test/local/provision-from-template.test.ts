import { DescribeTableCommand, DescribeTimeToLiveCommand } from "@aws-sdk/client-dynamodb";
import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AwsClients, createAwsClients } from "../../lib/adapters/aws-clients.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import {
  CFN_TYPE,
  type ProvisionedResources,
  provisionFromTemplate,
} from "../../lib/local/provision-from-template.js";
import { type LocalAws, startLocalAws } from "../../lib/local/start-local-aws.js";
import { type CfnTemplate, synthesizeTemplate } from "../../lib/local/synthesize-template.js";

let local: LocalAws;
let clients: AwsClients;
let template: CfnTemplate;
let provisioned: ProvisionedResources;

const resourcesOf = (type: string) =>
  Object.entries(template.Resources).filter(([, r]) => r.Type === type);

beforeAll(async () => {
  const starting = startLocalAws();
  template = synthesizeTemplate();
  local = await starting;
  clients = createAwsClients({
    endpoints: local.endpoints,
    region: local.region,
    credentials: LOCAL_CREDENTIALS,
  });
  provisioned = await provisionFromTemplate(template, {
    sqs: clients.sqs,
    dynamodb: clients.dynamodb,
  });
}, 120_000);

afterAll(async () => {
  clients?.destroy();
  await local?.stop();
});

describe("provisionFromTemplate", () => {
  it("creates every queue of the template with its retention, visibility and redrive policy", async () => {
    const queues = resourcesOf(CFN_TYPE.QUEUE);
    expect(queues.length).toBeGreaterThanOrEqual(2);
    for (const [logicalId, resource] of queues) {
      const props = resource.Properties ?? {};
      const queue = provisioned.queues[logicalId];
      if (queue === undefined) throw new Error(`${logicalId} was not provisioned`);
      const { Attributes = {} } = await clients.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ["All"] }),
      );
      expect(Attributes.MessageRetentionPeriod).toBe(String(props.MessageRetentionPeriod));
      if (props.VisibilityTimeout !== undefined) {
        expect(Attributes.VisibilityTimeout).toBe(String(props.VisibilityTimeout));
      }
      const redrive = props.RedrivePolicy as { maxReceiveCount: number } | undefined;
      if (redrive !== undefined) {
        const local = JSON.parse(Attributes.RedrivePolicy ?? "{}") as Record<string, unknown>;
        expect(Number(local.maxReceiveCount)).toBe(redrive.maxReceiveCount);
        expect(Object.values(provisioned.queues).map((q) => q.arn)).toContain(
          local.deadLetterTargetArn,
        );
      }
    }
  });

  it("creates the table with the template's keys, indexes and TTL attribute", async () => {
    const tables = resourcesOf(CFN_TYPE.TABLE);
    expect(tables).toHaveLength(1);
    const [logicalId, resource] = tables[0] as (typeof tables)[number];
    const props = resource.Properties as {
      KeySchema: unknown[];
      GlobalSecondaryIndexes: { IndexName: string; KeySchema: unknown[]; Projection: unknown }[];
      TimeToLiveSpecification: { AttributeName: string };
    };
    const name = provisioned.tables[logicalId]?.name ?? "";
    const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.KeySchema).toEqual(props.KeySchema);
    // DynamoDB lists a table's indexes in an order of its own: compared by name.
    const byName = (a: { IndexName?: string }, b: { IndexName?: string }) =>
      (a.IndexName ?? "").localeCompare(b.IndexName ?? "");
    expect(
      Table?.GlobalSecondaryIndexes?.map((i) => ({
        IndexName: i.IndexName,
        KeySchema: i.KeySchema,
        Projection: i.Projection,
      })).sort(byName),
    ).toEqual(
      props.GlobalSecondaryIndexes.map((i) => ({
        IndexName: i.IndexName,
        KeySchema: i.KeySchema,
        Projection: i.Projection,
      })).sort(byName),
    );
    const ttl = await clients.dynamodb.send(new DescribeTimeToLiveCommand({ TableName: name }));
    expect(ttl.TimeToLiveDescription?.AttributeName).toBe(
      props.TimeToLiveSpecification.AttributeName,
    );
  });

  it("reuses what exists when run again", async () => {
    const again = await provisionFromTemplate(template, {
      sqs: clients.sqs,
      dynamodb: clients.dynamodb,
    });
    expect(again.queues).toEqual(provisioned.queues);
    expect(again.tables).toEqual(provisioned.tables);
  });
});

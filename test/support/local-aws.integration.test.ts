import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { GetQueueAttributesCommand } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { DUE_INDEX } from "../../lib/contract/record-table.js";
import {
  createTestQueues,
  createTestTable,
  STATUS_INDEX,
  TEST_MAX_RECEIVE_COUNT,
  testClients,
} from "./local-aws.js";

describe("test resources", () => {
  it("creates a fresh ingress queue that redrives to its dead-letter queue", async () => {
    const first = await createTestQueues("resources");
    const second = await createTestQueues("resources");
    expect(second.ingressQueueUrl).not.toBe(first.ingressQueueUrl);
    const { Attributes } = await testClients().sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: first.ingressQueueUrl, AttributeNames: ["All"] }),
    );
    expect(JSON.parse(Attributes?.RedrivePolicy ?? "{}")).toEqual({
      deadLetterTargetArn: first.deadLetterQueueArn,
      maxReceiveCount: TEST_MAX_RECEIVE_COUNT,
    });
  });

  it("creates an on-demand table keyed by eventId with the status and due indexes", async () => {
    const tableName = await createTestTable("resources");
    const { Table } = await testClients().dynamodb.send(
      new DescribeTableCommand({ TableName: tableName }),
    );
    expect(Table?.KeySchema).toEqual([{ AttributeName: "eventId", KeyType: "HASH" }]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe("PAY_PER_REQUEST");
    // Compared by name: DynamoDB Local lists a table's indexes in an order of its own.
    const indexes = new Map(
      Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.KeySchema]),
    );
    expect(indexes).toEqual(
      new Map([
        [
          STATUS_INDEX,
          [
            { AttributeName: "listedStatus", KeyType: "HASH" },
            { AttributeName: "updatedAt", KeyType: "RANGE" },
          ],
        ],
        [
          DUE_INDEX.name,
          [
            { AttributeName: DUE_INDEX.partitionKey, KeyType: "HASH" },
            { AttributeName: DUE_INDEX.sortKey, KeyType: "RANGE" },
          ],
        ],
      ]),
    );
  });
});

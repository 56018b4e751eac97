import { CreateTableCommand, DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { dynamoItemBytes } from "../../bench/support/dynamo-item-size.js";
import { itWhereEmulated } from "../support/emulator-gaps.js";
import { testClients, uniqueName } from "../support/local-aws.js";

const clients = testClients();
const tableName = uniqueName("item-size");

/** An item shaped like a record (a number, a list of maps) padded to exactly `bytes`. */
const itemOf = (bytes: number) => {
  const base = {
    id: "evt-1",
    attempts: 3,
    history: [{ n: 1, c: 1_764_777_600_123, o: "retry_scheduled", m: "HTTP 503" }],
    pad: "",
  };
  return { ...base, pad: "x".repeat(bytes - dynamoItemBytes(base)) };
};

describe("DynamoDB item size as the bench weighs it", () => {
  beforeAll(async () => {
    await clients.dynamodb.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
      }),
    );
  });
  afterAll(async () => {
    await clients.dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
  });

  // DynamoDB bills a write one unit per started KB of the item: the sizer must put the boundary
  // where DynamoDB does, or the storage line it feeds is off by the same error.
  itWhereEmulated(
    "consumedCapacityBySize",
    "puts the one-unit boundary at 1 024 bytes where DynamoDB does",
    async () => {
      const unitsFor = async (bytes: number) => {
        const item = itemOf(bytes);
        expect(dynamoItemBytes(item)).toBe(bytes);
        const output = await clients.documents.send(
          new PutCommand({ TableName: tableName, Item: item, ReturnConsumedCapacity: "TOTAL" }),
        );
        return output.ConsumedCapacity?.CapacityUnits;
      };
      expect(await unitsFor(1024)).toBe(1);
      expect(await unitsFor(1025)).toBe(2);
      expect(await unitsFor(2048)).toBe(2);
      expect(await unitsFor(2049)).toBe(3);
    },
  );
});

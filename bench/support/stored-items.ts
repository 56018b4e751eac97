import { GetCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import type { AwsClients } from "../../lib/adapters/aws-clients.js";
import { RECORD_KEY } from "../../lib/contract/record-table.js";
import { dynamoItemBytes } from "./dynamo-item-size.js";
import { DYNAMODB_ITEM_OVERHEAD_BYTES } from "./list-prices.js";

/** What a contender's table holds once a round is over: the storage its events leave. */
export interface StoredItems {
  readonly items: number;
  /** Attributes at DynamoDB's own sizes plus its per-item overhead: the bytes storage is billed by. */
  readonly bytes: number;
}

/** Weighs every item of `tableName` (uncounted clients: the harness's look-up, not the contender's). */
export const storedItemsOf = async (
  clients: AwsClients,
  tableName: string,
): Promise<StoredItems> => {
  let items = 0;
  let bytes = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await clients.documents.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) {
      items += 1;
      bytes += dynamoItemBytes(item) + DYNAMODB_ITEM_OVERHEAD_BYTES;
    }
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return { items, bytes };
};

/** The DynamoDB size of each event's record item (without the per-item overhead); none if absent. */
export const storedItemSizes = async (
  clients: AwsClients,
  tableName: string,
  eventIds: readonly string[],
): Promise<number[]> => {
  const items = await Promise.all(
    eventIds.map(async (eventId) => {
      const output = await clients.documents.send(
        new GetCommand({ TableName: tableName, Key: { [RECORD_KEY]: eventId } }),
      );
      return output.Item;
    }),
  );
  return items.flatMap((item) => (item === undefined ? [] : [dynamoItemBytes(item)]));
};

import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import type { AwsClients } from "../../lib/adapters/aws-clients.js";
import { DYNAMODB_ITEM_OVERHEAD_BYTES } from "./list-prices.js";

/** What a contender's table holds once a round is over: the storage its events leave. */
export interface StoredItems {
  readonly items: number;
  /** Attributes as JSON plus DynamoDB's per-item overhead: ≈ the bytes storage is billed by. */
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
      bytes += Buffer.byteLength(JSON.stringify(item)) + DYNAMODB_ITEM_OVERHEAD_BYTES;
    }
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return { items, bytes };
};

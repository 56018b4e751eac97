import { RECORD_KEY, STATUS_INDEX } from "../../contract/record-table.js";
import type { ListedTarget, StoredBreaker } from "../../core/ports.js";
import { type StoreContext, storeFailure } from "../dynamo-event-store/store-context.js";
import { learnedEntriesOf } from "../dynamo-learned-entries.js";
import { itemKey, storedOf, TARGET_ITEM_PREFIX, TARGET_LISTED_STATUS } from "./item.js";

/** A target's item, read consistently; none when it was never written. */
export const getBreaker = async (
  context: StoreContext,
  key: string,
): Promise<StoredBreaker | undefined> => {
  try {
    const result = await context.doc.send(
      new context.sdk.GetCommand({
        TableName: context.tableName,
        Key: itemKey(key),
        ConsistentRead: true,
      }),
    );
    return result.Item === undefined ? undefined : storedOf(key, result.Item, Date.now());
  } catch (error) {
    return storeFailure(context, error, "getBreaker");
  }
};

/** Up to `limit` targets, the most recently written first: one Query of the status index. */
export const listTargets = async (
  context: StoreContext,
  limit: number,
): Promise<ListedTarget[]> => {
  const targets: ListedTarget[] = [];
  let startKey: Record<string, unknown> | undefined;
  try {
    do {
      const page = await context.doc.send(
        new context.sdk.QueryCommand({
          TableName: context.tableName,
          IndexName: STATUS_INDEX.name,
          KeyConditionExpression: `${STATUS_INDEX.partitionKey} = :listed`,
          ExpressionAttributeValues: { ":listed": TARGET_LISTED_STATUS },
          ScanIndexForward: false,
          Limit: limit - targets.length,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const id = String(item[RECORD_KEY]);
        targets.push({
          ...storedOf(id.slice(TARGET_ITEM_PREFIX.length), item, Date.now()),
          updatedAt: String(item[STATUS_INDEX.sortKey]),
          learned: learnedEntriesOf(item),
        });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && targets.length < limit);
  } catch (error) {
    return storeFailure(context, error, "listTargets");
  }
  return targets;
};

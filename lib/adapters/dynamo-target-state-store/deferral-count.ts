import { isConditionFailure } from "../dynamo-errors.js";
import { type StoreContext, storeFailure } from "../dynamo-event-store/store-context.js";
import { itemKey, LISTED_SET, listed } from "./item.js";

/** Adds turned-away events to an existing breaker's count; creates no item. */
export const addDeferrals = async (
  context: StoreContext,
  key: string,
  count: number,
  nowMs: number,
): Promise<void> => {
  try {
    await context.doc.send(
      new context.sdk.UpdateCommand({
        TableName: context.tableName,
        Key: itemKey(key),
        UpdateExpression: `SET ${LISTED_SET} ADD deferredCount :deferred`,
        // Only a breaker that exists turns events away; a count must not create an item.
        ConditionExpression: "attribute_exists(version)",
        ExpressionAttributeValues: { ":deferred": count, ...listed(nowMs) },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) return;
    storeFailure(context, error, "addDeferrals");
  }
};

import { TTL_ATTRIBUTE } from "../../contract/record-table.js";
import type { SlotRequest } from "../../core/ports.js";
import { isConditionFailure } from "../dynamo-errors.js";
import { type StoreContext, storeFailure } from "../dynamo-event-store/store-context.js";
import { slotKey, ttlOf } from "./item.js";

/** Takes a concurrency slot, free or with its holder's lease lapsed: one conditional PutItem. */
export const takeSlot = async (context: StoreContext, request: SlotRequest): Promise<boolean> => {
  try {
    await context.doc.send(
      new context.sdk.PutCommand({
        TableName: context.tableName,
        Item: {
          ...slotKey(request.key, request.slot),
          holder: request.holder,
          leaseUntilMs: request.leaseUntilMs,
          [TTL_ATTRIBUTE]: ttlOf(request.leaseUntilMs),
        },
        ConditionExpression: "attribute_not_exists(holder) OR leaseUntilMs < :now",
        ExpressionAttributeValues: { ":now": request.nowMs },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    return storeFailure(context, error, "takeSlot");
  }
};

/** Gives a slot back if `holder` still holds it: one conditional DeleteItem. */
export const releaseSlot = async (
  context: StoreContext,
  key: string,
  slot: number,
  holder: string,
): Promise<void> => {
  try {
    await context.doc.send(
      new context.sdk.DeleteCommand({
        TableName: context.tableName,
        Key: slotKey(key, slot),
        ConditionExpression: "holder = :holder",
        ExpressionAttributeValues: { ":holder": holder },
      }),
    );
  } catch (error) {
    // Its lease lapsed and another call holds the slot now: nothing of ours to give back.
    if (isConditionFailure(error)) return;
    storeFailure(context, error, "releaseSlot");
  }
};

import { entriesToPrune, type LearnedLimitEntry } from "../../core/learned-limits.js";
import type { LearnedLimitWrite } from "../../core/ports.js";
import { isConditionFailure } from "../dynamo-errors.js";
import { type StoreContext, storeFailure } from "../dynamo-event-store/store-context.js";
import { learnedAttributeOf, learnedEntriesOf, learnedValueOf } from "../dynamo-learned-entries.js";
import { itemKey, LISTED_SET, listed } from "./item.js";

/**
 * Removes the entries `pruned`, each only if it is still the one read: an instance that
 * rewrote its entry in between keeps it (the condition fails, and a later write prunes again).
 */
const prune = async (
  context: StoreContext,
  key: string,
  pruned: readonly LearnedLimitEntry[],
): Promise<void> => {
  const names = Object.fromEntries(
    pruned.map((entry, i) => [`#p${i}`, learnedAttributeOf(entry.instanceId)]),
  );
  try {
    await context.doc.send(
      new context.sdk.UpdateCommand({
        TableName: context.tableName,
        Key: itemKey(key),
        UpdateExpression: `REMOVE ${pruned.map((_, i) => `#p${i}`).join(", ")}`,
        ConditionExpression: pruned.map((_, i) => `#p${i}.writtenAtMs = :w${i}`).join(" AND "),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: Object.fromEntries(
          pruned.map((entry, i) => [`:w${i}`, entry.writtenAtMs]),
        ),
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) return;
    storeFailure(context, error, "pruneLearnedLimits");
  }
};

/**
 * One write of the instance's own attribute (the listing's stamp with it, so that a target held
 * back is listed); a second only when the item it returned holds entries to prune. The other
 * instances' entries come back with the write (`ALL_NEW`), so learning what they hold costs
 * no read.
 */
export const writeLearnedLimit = async (
  context: StoreContext,
  write: LearnedLimitWrite,
): Promise<readonly LearnedLimitEntry[]> => {
  const { key, instanceId, entry, nowMs } = write;
  const own = entry === undefined ? "REMOVE #entry" : "SET #entry = :entry,";
  let item: Record<string, unknown> | undefined;
  try {
    const result = await context.doc.send(
      new context.sdk.UpdateCommand({
        TableName: context.tableName,
        Key: itemKey(key),
        UpdateExpression: entry === undefined ? `${own} SET ${LISTED_SET}` : `${own} ${LISTED_SET}`,
        ExpressionAttributeNames: { "#entry": learnedAttributeOf(instanceId) },
        ExpressionAttributeValues: {
          ...(entry === undefined ? {} : { ":entry": learnedValueOf(entry) }),
          ...listed(nowMs),
        },
        ReturnValues: "ALL_NEW",
      }),
    );
    item = result.Attributes;
  } catch (error) {
    return storeFailure(context, error, "writeLearnedLimit");
  }
  const entries = learnedEntriesOf(item);
  const pruned = entriesToPrune(entries, nowMs);
  if (pruned.length > 0) await prune(context, key, pruned);
  return entries.filter((found) => found.instanceId !== instanceId && !pruned.includes(found));
};

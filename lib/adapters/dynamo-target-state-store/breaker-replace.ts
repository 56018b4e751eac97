import type { ReplaceBreakerRequest, ReplaceBreakerResult } from "../../core/ports.js";
import { startsOutage, stateChangeStamps } from "../../core/target-view.js";
import { conditionFailure, isConditionFailure } from "../dynamo-errors.js";
import { type StoreContext, storeFailure } from "../dynamo-event-store/store-context.js";
import { deferredAdd, itemKey, LISTED_SET, lastErrorUpdate, listed, storedOf } from "./item.js";

/**
 * Sets the breaker's own attributes only (an update, not a put), so that the notes written by
 * other writes (the deferred count above all, which moves no version) are kept.
 */
export const replaceBreaker = async (
  context: StoreContext,
  request: ReplaceBreakerRequest,
): Promise<ReplaceBreakerResult> => {
  const { key, version, breaker, nowMs } = request;
  const { reopenAtMs, ...state } = breaker;
  const stamps = stateChangeStamps(breaker);
  const error = lastErrorUpdate(request, nowMs);
  // A new outage counts its deferrals from zero; otherwise they add up.
  const outage = startsOutage(breaker);
  const deferred = outage ? { add: [], values: {} } : deferredAdd(request);
  const fields: Record<string, unknown> = {
    ...state,
    ...(reopenAtMs === undefined ? {} : { reopenAtMs }),
    ...stamps,
    ...(outage ? { deferredCount: request.deferred ?? 0 } : {}),
    version: version + 1,
  };
  const names = Object.fromEntries(Object.keys(fields).map((name) => [`#${name}`, name]));
  const set = [
    ...Object.keys(fields).map((name) => `#${name} = :${name}`),
    LISTED_SET,
    ...error.set,
  ];
  const expression =
    `SET ${set.join(", ")}` +
    (deferred.add.length > 0 ? ` ADD ${deferred.add.join(", ")}` : "") +
    (reopenAtMs === undefined ? " REMOVE reopenAtMs" : "");
  try {
    const result = await context.doc.send(
      new context.sdk.UpdateCommand({
        TableName: context.tableName,
        Key: itemKey(key),
        UpdateExpression: expression,
        ConditionExpression:
          version === 0 ? "attribute_not_exists(version)" : "version = :expected",
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:${name}`, value])),
          ...(version === 0 ? {} : { ":expected": version }),
          ...listed(nowMs),
          ...error.values,
          ...deferred.values,
        },
        ReturnValues: "ALL_NEW",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      }),
    );
    return { kind: "replaced", stored: storedOf(key, result.Attributes, nowMs) };
  } catch (error) {
    if (!isConditionFailure(error)) return storeFailure(context, error, "replaceBreaker");
    return { kind: "moved", stored: storedOf(key, conditionFailure(error).item, nowMs) };
  }
};

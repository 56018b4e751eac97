import { BreakerState } from "../../core/circuit-breaker.js";
import type { CountFailureRequest, StoredBreaker } from "../../core/ports.js";
import { isConditionFailure } from "../dynamo-errors.js";
import { type StoreContext, storeFailure } from "../dynamo-event-store/store-context.js";
import { countIntoWindow } from "../window-count.js";
import { deferredAdd, itemKey, LISTED_SET, lastErrorUpdate, listed, storedOf } from "./item.js";

/** One conditional count of a failure; undefined when the condition (on the window) failed. */
const countIf = async (
  context: StoreContext,
  request: CountFailureRequest,
  update: {
    readonly set: readonly string[];
    readonly add: readonly string[];
    readonly condition: string;
    readonly values?: Record<string, unknown>;
  },
): Promise<StoredBreaker | undefined> => {
  // The failure's note and the deferrals ride on the count: no write of their own.
  const error = lastErrorUpdate(request, request.nowMs);
  const deferred = deferredAdd(request);
  const set = [...update.set, LISTED_SET, ...error.set];
  const add = [...update.add, ...deferred.add];
  const expression = `SET ${set.join(", ")} ADD ${add.join(", ")}`;
  try {
    const result = await context.doc.send(
      new context.sdk.UpdateCommand({
        TableName: context.tableName,
        Key: itemKey(request.key),
        UpdateExpression: expression,
        ConditionExpression: update.condition,
        ...(expression.includes("#state")
          ? { ExpressionAttributeNames: { "#state": "state" } }
          : {}),
        ExpressionAttributeValues: {
          ":calls": request.successes + request.failures,
          ":failures": request.failures,
          ":one": 1,
          ":window": request.windowStartMs,
          ...listed(request.nowMs),
          ...error.values,
          ...deferred.values,
          ...update.values,
        },
        ReturnValues: "ALL_NEW",
      }),
    );
    return storedOf(request.key, result.Attributes, request.nowMs);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    return storeFailure(context, error, "countFailure");
  }
};

/**
 * Adds to the window the item holds, if it is `windowStartMs` or a later one: an instance whose
 * clock runs a little behind counts into the window the others have started.
 */
const addToWindow = (context: StoreContext, request: CountFailureRequest) =>
  countIf(context, request, {
    set: [],
    add: ["calls :calls", "failures :failures", "version :one"],
    condition: "windowStartMs >= :window",
  });

/** Starts the window at `windowStartMs` with this failure, unless someone started it already. */
const startWindow = (context: StoreContext, request: CountFailureRequest) =>
  countIf(context, request, {
    set: [
      "windowStartMs = :window",
      "calls = :calls",
      "failures = :failures",
      "#state = if_not_exists(#state, :closed)",
      "openings = if_not_exists(openings, :zero)",
      "probesInFlight = if_not_exists(probesInFlight, :zero)",
      "changedAtMs = if_not_exists(changedAtMs, :now)",
    ],
    add: ["version :one"],
    condition: "attribute_not_exists(windowStartMs) OR windowStartMs < :window",
    values: { ":zero": 0, ":closed": BreakerState.CLOSED, ":now": request.nowMs },
  });

/** Counts a call's failures (and successes) into the item's window, starting one if due. */
export const countFailure = async (
  context: StoreContext,
  request: CountFailureRequest,
): Promise<StoredBreaker> =>
  countIntoWindow(context, "countFailure", {
    addToWindow: () => addToWindow(context, request),
    startWindow: () => startWindow(context, request),
  });

import { TTL_ATTRIBUTE } from "../../contract/record-table.js";
import type { RateCount } from "../../core/ports.js";
import { isConditionFailure } from "../dynamo-errors.js";
import { type StoreContext, storeFailure } from "../dynamo-event-store/store-context.js";
import { countIntoWindow } from "../window-count.js";
import { rateKey, ttlOf } from "./item.js";

/** Calls asked of a target's rate counter, counted into the window starting at `windowStartMs`. */
interface RateAsk {
  readonly key: string;
  readonly windowStartMs: number;
  readonly nowMs: number;
  readonly calls: number;
}

/** One conditional count; undefined when the condition (on the window) failed. */
const countIf = async (
  context: StoreContext,
  ask: RateAsk,
  update: { readonly expression: string; readonly condition: string },
): Promise<RateCount | undefined> => {
  try {
    const result = await context.doc.send(
      new context.sdk.UpdateCommand({
        TableName: context.tableName,
        Key: rateKey(ask.key),
        UpdateExpression: update.expression,
        ConditionExpression: update.condition,
        ExpressionAttributeNames: { "#ttl": TTL_ATTRIBUTE },
        ExpressionAttributeValues: {
          ":calls": ask.calls,
          ":window": ask.windowStartMs,
          ":ttl": ttlOf(ask.nowMs),
        },
        ReturnValues: "ALL_NEW",
      }),
    );
    const item = result.Attributes ?? {};
    return {
      windowStartMs:
        typeof item.windowStartMs === "number" ? item.windowStartMs : ask.windowStartMs,
      count: typeof item.asked === "number" ? item.asked : ask.calls,
    };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    return storeFailure(context, error, "countCall");
  }
};

// A clock a little behind counts into the window the others have started, like the breakers.
const addToWindow = (context: StoreContext, ask: RateAsk) =>
  countIf(context, ask, {
    expression: "ADD asked :calls SET #ttl = :ttl",
    condition: "windowStartMs >= :window",
  });

const startWindow = (context: StoreContext, ask: RateAsk) =>
  countIf(context, ask, {
    expression: "SET windowStartMs = :window, asked = :calls, #ttl = :ttl",
    condition: "attribute_not_exists(windowStartMs) OR windowStartMs < :window",
  });

/** Counts `calls` into the target's window: one UpdateItem, two or three when it starts one. */
export const countCall = (context: StoreContext, ask: RateAsk): Promise<RateCount> =>
  countIntoWindow(context, "countCall", {
    addToWindow: () => addToWindow(context, ask),
    startWindow: () => startWindow(context, ask),
  });

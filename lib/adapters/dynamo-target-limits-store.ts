import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { RECORD_KEY, TTL_ATTRIBUTE } from "../contract/record-table.js";
import type { RateCount, SlotRequest, TargetLimitsStore } from "../core/ports.js";
import { dynamoDbDocumentSdk } from "./aws-sdk-modules.js";
import { isConditionFailure, translateDynamoError } from "./dynamo-errors.js";

export interface DynamoTargetLimitsStoreOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * Limit items live in the event table beside the breakers' (`#target:`): a slot under
 * `#slot:<key>#<i>`, a rate counter under `#rate:<key>`. Event ids start with a letter or digit,
 * so none can collide, and no item carries `listedStatus`, so the status index never sees them.
 */
const SLOT_ITEM_PREFIX = "#slot:";
const RATE_ITEM_PREFIX = "#rate:";

/** Idle limit items (a target no longer called) are left to the table's TTL after this long. */
const IDLE_ITEM_SECONDS = 86_400;

const slotKey = (key: string, slot: number) => ({
  [RECORD_KEY]: `${SLOT_ITEM_PREFIX}${key}#${slot}`,
});
const rateKey = (key: string) => ({ [RECORD_KEY]: `${RATE_ITEM_PREFIX}${key}` });
const ttlOf = (nowMs: number): number => Math.floor(nowMs / 1000) + IDLE_ITEM_SECONDS;

/**
 * The targets' limits on DynamoDB. Taking a slot is one conditional `PutItem`, giving it back one
 * conditional `DeleteItem`; counting a call is one `UpdateItem` (two or three when it starts a
 * new window). A failed condition costs a write too, which is why a call tries few slots.
 */
export const createDynamoTargetLimitsStore = ({
  doc,
  tableName,
}: DynamoTargetLimitsStoreOptions): TargetLimitsStore => {
  const { DeleteCommand, PutCommand, UpdateCommand } = dynamoDbDocumentSdk();
  const fail = (error: unknown, operation: string): never => {
    throw translateDynamoError(error, operation, tableName);
  };

  const takeSlot = async (request: SlotRequest): Promise<boolean> => {
    try {
      await doc.send(
        new PutCommand({
          TableName: tableName,
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
      return fail(error, "takeSlot");
    }
  };

  const releaseSlot = async (key: string, slot: number, holder: string): Promise<void> => {
    try {
      await doc.send(
        new DeleteCommand({
          TableName: tableName,
          Key: slotKey(key, slot),
          ConditionExpression: "holder = :holder",
          ExpressionAttributeValues: { ":holder": holder },
        }),
      );
    } catch (error) {
      // Its lease lapsed and another call holds the slot now: nothing of ours to give back.
      if (isConditionFailure(error)) return;
      fail(error, "releaseSlot");
    }
  };

  /** One conditional count; undefined when the condition (on the window) failed. */
  const countIf = async (
    key: string,
    update: { readonly expression: string; readonly condition: string },
    windowStartMs: number,
    nowMs: number,
    calls: number,
  ): Promise<RateCount | undefined> => {
    try {
      const result = await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: rateKey(key),
          UpdateExpression: update.expression,
          ConditionExpression: update.condition,
          ExpressionAttributeNames: { "#ttl": TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ":calls": calls,
            ":window": windowStartMs,
            ":ttl": ttlOf(nowMs),
          },
          ReturnValues: "ALL_NEW",
        }),
      );
      const item = result.Attributes ?? {};
      return {
        windowStartMs: typeof item.windowStartMs === "number" ? item.windowStartMs : windowStartMs,
        count: typeof item.asked === "number" ? item.asked : calls,
      };
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      return fail(error, "countCall");
    }
  };

  // A clock a little behind counts into the window the others have started, like the breakers.
  const addToWindow = (key: string, windowStartMs: number, nowMs: number, calls: number) =>
    countIf(
      key,
      { expression: "ADD asked :calls SET #ttl = :ttl", condition: "windowStartMs >= :window" },
      windowStartMs,
      nowMs,
      calls,
    );

  const startWindow = (key: string, windowStartMs: number, nowMs: number, calls: number) =>
    countIf(
      key,
      {
        expression: "SET windowStartMs = :window, asked = :calls, #ttl = :ttl",
        condition: "attribute_not_exists(windowStartMs) OR windowStartMs < :window",
      },
      windowStartMs,
      nowMs,
      calls,
    );

  const countCall = async (key: string, windowStartMs: number, nowMs: number, calls = 1) => {
    // Another instance may start the window between the two writes; the third finds it started.
    const counted =
      (await addToWindow(key, windowStartMs, nowMs, calls)) ??
      (await startWindow(key, windowStartMs, nowMs, calls)) ??
      (await addToWindow(key, windowStartMs, nowMs, calls));
    if (counted === undefined) {
      return fail(new Error("the window moved twice during one count"), "countCall");
    }
    return counted;
  };

  return { takeSlot, releaseSlot, countCall };
};

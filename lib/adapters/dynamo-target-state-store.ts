import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { type Breaker, BreakerState, closedBreaker } from "../core/circuit-breaker.js";
import type {
  CountFailureRequest,
  ReplaceBreakerResult,
  StoredBreaker,
  TargetStateStore,
} from "../core/ports.js";
import { dynamoDbDocumentSdk } from "./aws-sdk-modules.js";
import { conditionFailure, isConditionFailure, translateDynamoError } from "./dynamo-errors.js";
import { RECORD_KEY } from "./dynamo-record-item.js";

export interface DynamoTargetStateStoreOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * Breaker items live in the event table under `#target:<key>`: an event id starts with a letter
 * or digit, so none can collide, and the items carry no `listedStatus`, so the status index never
 * sees them.
 */
export const TARGET_ITEM_PREFIX = "#target:";

const itemKey = (key: string) => ({ [RECORD_KEY]: `${TARGET_ITEM_PREFIX}${key}` });

const num = (value: unknown, fallback: number): number =>
  typeof value === "number" ? value : fallback;

/** Reads a breaker item; one never written reads as a closed breaker at version 0. */
const storedOf = (
  key: string,
  item: Record<string, unknown> | undefined,
  nowMs: number,
): StoredBreaker => {
  if (item === undefined) return { key, breaker: closedBreaker(nowMs), version: 0 };
  const breaker: Breaker = {
    state: (item.state as Breaker["state"] | undefined) ?? BreakerState.CLOSED,
    windowStartMs: num(item.windowStartMs, nowMs),
    calls: num(item.calls, 0),
    failures: num(item.failures, 0),
    openings: num(item.openings, 0),
    reopenAtMs: typeof item.reopenAtMs === "number" ? item.reopenAtMs : undefined,
    probesInFlight: num(item.probesInFlight, 0),
    changedAtMs: num(item.changedAtMs, nowMs),
  };
  return { key, breaker, version: num(item.version, 0) };
};

/**
 * The targets' breakers on DynamoDB. Counting a failure is one `UpdateItem` (two when it opens a
 * new window); a state change is one conditional `PutItem` guarded by the item's version.
 */
export const createDynamoTargetStateStore = ({
  doc,
  tableName,
}: DynamoTargetStateStoreOptions): TargetStateStore => {
  const { GetCommand, PutCommand, UpdateCommand } = dynamoDbDocumentSdk();
  const fail = (error: unknown, operation: string): never => {
    throw translateDynamoError(error, operation, tableName);
  };

  /** One conditional count of a failure; undefined when the condition (on the window) failed. */
  const countIf = async (
    request: CountFailureRequest,
    update: {
      readonly expression: string;
      readonly condition: string;
      readonly values?: Record<string, unknown>;
    },
  ): Promise<StoredBreaker | undefined> => {
    try {
      const result = await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: itemKey(request.key),
          UpdateExpression: update.expression,
          ConditionExpression: update.condition,
          ...(update.expression.includes("#state")
            ? { ExpressionAttributeNames: { "#state": "state" } }
            : {}),
          ExpressionAttributeValues: {
            ":calls": request.successes + 1,
            ":one": 1,
            ":window": request.windowStartMs,
            ...update.values,
          },
          ReturnValues: "ALL_NEW",
        }),
      );
      return storedOf(request.key, result.Attributes, request.nowMs);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      return fail(error, "countFailure");
    }
  };

  /**
   * Adds to the window the item holds, if it is `windowStartMs` or a later one: an instance whose
   * clock runs a little behind counts into the window the others have started.
   */
  const addToWindow = (request: CountFailureRequest) =>
    countIf(request, {
      expression: "ADD calls :calls, failures :one, version :one",
      condition: "windowStartMs >= :window",
    });

  /** Starts the window at `windowStartMs` with this failure, unless someone started it already. */
  const startWindow = (request: CountFailureRequest) =>
    countIf(request, {
      expression:
        "SET windowStartMs = :window, calls = :calls, failures = :one, " +
        "#state = if_not_exists(#state, :closed), openings = if_not_exists(openings, :zero), " +
        "probesInFlight = if_not_exists(probesInFlight, :zero), " +
        "changedAtMs = if_not_exists(changedAtMs, :now) ADD version :one",
      condition: "attribute_not_exists(windowStartMs) OR windowStartMs < :window",
      values: { ":zero": 0, ":closed": BreakerState.CLOSED, ":now": request.nowMs },
    });

  const countFailure = async (request: CountFailureRequest): Promise<StoredBreaker> => {
    // Another instance may start the window between the two writes; the third finds it started.
    const counted =
      (await addToWindow(request)) ?? (await startWindow(request)) ?? (await addToWindow(request));
    if (counted === undefined) {
      return fail(new Error("the window moved twice during one count"), "countFailure");
    }
    return counted;
  };

  const replace = async (
    key: string,
    version: number,
    breaker: Breaker,
  ): Promise<ReplaceBreakerResult> => {
    const stored: StoredBreaker = { key, breaker, version: version + 1 };
    try {
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...itemKey(key), ...breaker, version: stored.version },
          ConditionExpression:
            version === 0 ? "attribute_not_exists(version)" : "version = :version",
          ...(version === 0 ? {} : { ExpressionAttributeValues: { ":version": version } }),
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      );
      return { kind: "replaced", stored };
    } catch (error) {
      if (!isConditionFailure(error)) return fail(error, "replaceBreaker");
      return {
        kind: "moved",
        stored: storedOf(key, conditionFailure(error).item, breaker.changedAtMs),
      };
    }
  };

  const get = async (key: string): Promise<StoredBreaker | undefined> => {
    try {
      const result = await doc.send(
        new GetCommand({ TableName: tableName, Key: itemKey(key), ConsistentRead: true }),
      );
      return result.Item === undefined ? undefined : storedOf(key, result.Item, Date.now());
    } catch (error) {
      return fail(error, "getBreaker");
    }
  };

  return { countFailure, replace, get };
};

import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { RECORD_KEY, STATUS_INDEX } from "../contract/record-table.js";
import { type Breaker, BreakerState, closedBreaker } from "../core/circuit-breaker.js";
import { entriesToPrune, type LearnedLimitEntry } from "../core/learned-limits.js";
import type {
  CountFailureRequest,
  LearnedLimitWrite,
  ListedTarget,
  ReplaceBreakerRequest,
  ReplaceBreakerResult,
  StoredBreaker,
  TargetStateStore,
  TargetWriteExtras,
} from "../core/ports.js";
import { startsOutage, stateChangeStamps, type TargetNotes } from "../core/target-view.js";
import { dynamoDbDocumentSdk } from "./aws-sdk-modules.js";
import { conditionFailure, isConditionFailure, translateDynamoError } from "./dynamo-errors.js";
import { learnedAttributeOf, learnedEntriesOf, learnedValueOf } from "./dynamo-learned-entries.js";

export interface DynamoTargetStateStoreOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * Breaker items live in the event table under `#target:<key>`: an event id starts with a letter
 * or digit, so none can collide.
 */
export const TARGET_ITEM_PREFIX = "#target:";

/**
 * The status index's partition value every breaker item carries, with its last write's time as
 * the sort key: `ricochet targets` is one Query of the index, with no registry item to keep and
 * no index to add. No status starts with `#`, so no status listing can ever return a target.
 */
const TARGET_LISTED_STATUS = "#target";

const itemKey = (key: string) => ({ [RECORD_KEY]: `${TARGET_ITEM_PREFIX}${key}` });

/** What every write of an item sets, so that the index lists it by its last write. */
const listed = (nowMs: number) => ({
  ":listed": TARGET_LISTED_STATUS,
  ":updated": new Date(nowMs).toISOString(),
});
const LISTED_SET = `${STATUS_INDEX.partitionKey} = :listed, ${STATUS_INDEX.sortKey} = :updated`;

/** The SET clauses and values a write's extras add (the deferred count is the caller's). */
const lastErrorUpdate = (
  extras: TargetWriteExtras,
  nowMs: number,
): { readonly set: string[]; readonly values: Record<string, unknown> } =>
  extras.lastError === undefined
    ? { set: [], values: {} }
    : {
        set: ["lastError = :lastError", "lastErrorAtMs = :now"],
        values: { ":lastError": extras.lastError, ":now": nowMs },
      };

const deferredAdd = (extras: TargetWriteExtras) =>
  (extras.deferred ?? 0) > 0
    ? { add: ["deferredCount :deferred"], values: { ":deferred": extras.deferred } }
    : { add: [], values: {} };

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
  const notes: TargetNotes = {
    lastError: typeof item.lastError === "string" ? item.lastError : undefined,
    lastErrorAtMs: typeof item.lastErrorAtMs === "number" ? item.lastErrorAtMs : undefined,
    deferred: typeof item.deferredCount === "number" ? item.deferredCount : undefined,
    openedAtMs: typeof item.openedAtMs === "number" ? item.openedAtMs : undefined,
    closedAtMs: typeof item.closedAtMs === "number" ? item.closedAtMs : undefined,
  };
  return { key, breaker, version: num(item.version, 0), notes };
};

/**
 * The targets' breakers on DynamoDB. Counting a failure is one `UpdateItem` (two when it opens a
 * new window); a state change is one conditional `PutItem` guarded by the item's version.
 */
export const createDynamoTargetStateStore = ({
  doc,
  tableName,
}: DynamoTargetStateStoreOptions): TargetStateStore => {
  const { GetCommand, QueryCommand, UpdateCommand } = dynamoDbDocumentSdk();
  const fail = (error: unknown, operation: string): never => {
    throw translateDynamoError(error, operation, tableName);
  };

  /** One conditional count of a failure; undefined when the condition (on the window) failed. */
  const countIf = async (
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
      const result = await doc.send(
        new UpdateCommand({
          TableName: tableName,
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
      return fail(error, "countFailure");
    }
  };

  /**
   * Adds to the window the item holds, if it is `windowStartMs` or a later one: an instance whose
   * clock runs a little behind counts into the window the others have started.
   */
  const addToWindow = (request: CountFailureRequest) =>
    countIf(request, {
      set: [],
      add: ["calls :calls", "failures :failures", "version :one"],
      condition: "windowStartMs >= :window",
    });

  /** Starts the window at `windowStartMs` with this failure, unless someone started it already. */
  const startWindow = (request: CountFailureRequest) =>
    countIf(request, {
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

  const countFailure = async (request: CountFailureRequest): Promise<StoredBreaker> => {
    // Another instance may start the window between the two writes; the third finds it started.
    const counted =
      (await addToWindow(request)) ?? (await startWindow(request)) ?? (await addToWindow(request));
    if (counted === undefined) {
      return fail(new Error("the window moved twice during one count"), "countFailure");
    }
    return counted;
  };

  /**
   * Sets the breaker's own attributes only (an update, not a put), so that the notes written by
   * other writes (the deferred count above all, which moves no version) are kept.
   */
  const replace = async (request: ReplaceBreakerRequest): Promise<ReplaceBreakerResult> => {
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
      const result = await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: itemKey(key),
          UpdateExpression: expression,
          ConditionExpression:
            version === 0 ? "attribute_not_exists(version)" : "version = :expected",
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: {
            ...Object.fromEntries(
              Object.entries(fields).map(([name, value]) => [`:${name}`, value]),
            ),
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
      if (!isConditionFailure(error)) return fail(error, "replaceBreaker");
      return { kind: "moved", stored: storedOf(key, conditionFailure(error).item, nowMs) };
    }
  };

  const addDeferrals = async (key: string, count: number, nowMs: number): Promise<void> => {
    try {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: itemKey(key),
          UpdateExpression: `SET ${LISTED_SET} ADD deferredCount :deferred`,
          // Only a breaker that exists turns events away; a count must not create an item.
          ConditionExpression: "attribute_exists(version)",
          ExpressionAttributeValues: { ":deferred": count, ...listed(nowMs) },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return;
      fail(error, "addDeferrals");
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

  const list = async (limit: number): Promise<ListedTarget[]> => {
    const targets: ListedTarget[] = [];
    let startKey: Record<string, unknown> | undefined;
    try {
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: tableName,
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
      return fail(error, "listTargets");
    }
    return targets;
  };

  /**
   * Removes the entries `pruned`, each only if it is still the one read: an instance that
   * rewrote its entry in between keeps it (the condition fails, and a later write prunes again).
   */
  const prune = async (key: string, pruned: readonly LearnedLimitEntry[]): Promise<void> => {
    const names = Object.fromEntries(
      pruned.map((entry, i) => [`#p${i}`, learnedAttributeOf(entry.instanceId)]),
    );
    try {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
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
      fail(error, "pruneLearnedLimits");
    }
  };

  /**
   * One write of the instance's own attribute (the listing's stamp with it, so that a target held
   * back is listed); a second only when the item it returned holds entries to prune.
   */
  const writeLearnedLimit = async (write: LearnedLimitWrite): Promise<void> => {
    const { key, instanceId, entry, nowMs } = write;
    const own = entry === undefined ? "REMOVE #entry" : "SET #entry = :entry,";
    let item: Record<string, unknown> | undefined;
    try {
      const result = await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: itemKey(key),
          UpdateExpression:
            entry === undefined ? `${own} SET ${LISTED_SET}` : `${own} ${LISTED_SET}`,
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
      return fail(error, "writeLearnedLimit");
    }
    const pruned = entriesToPrune(learnedEntriesOf(item), nowMs);
    if (pruned.length > 0) await prune(key, pruned);
  };

  return { countFailure, replace, addDeferrals, get, list, writeLearnedLimit };
};

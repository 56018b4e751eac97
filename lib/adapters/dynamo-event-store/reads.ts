import { STATUS_INDEX } from "../../contract/record-table.js";
import type { ListByStatusRequest } from "../../core/ports.js";
import type { EventRecord } from "../../core/record.js";
import { targetKeyOfRecord } from "../../core/target-key.js";
import { itemToRecord, LISTED_STATUSES } from "../dynamo-record-item.js";
import { STATUS_NAME } from "./conditions.js";
import { type StoreContext, storeFailure } from "./store-context.js";

/** One record, read consistently; undefined when there is none. */
export const get = async (
  context: StoreContext,
  eventId: string,
): Promise<EventRecord | undefined> => {
  try {
    const result = await context.doc.send(
      new context.sdk.GetCommand({
        TableName: context.tableName,
        Key: { eventId },
        ConsistentRead: true,
      }),
    );
    return result.Item === undefined ? undefined : itemToRecord(result.Item);
  } catch (error) {
    return storeFailure(context, error, "get");
  }
};

type Page = {
  readonly Items?: Record<string, unknown>[];
  readonly LastEvaluatedKey?: Record<string, unknown>;
};

/**
 * One page of items in the request's status: a Query of the sparse index for a listed status
 * (at most `remaining` items when no target filter thins the page), a filtered Scan otherwise.
 */
const statusPage = (
  context: StoreContext,
  request: ListByStatusRequest,
  startKey: Record<string, unknown> | undefined,
  remaining: number,
): Promise<Page> => {
  const before = request.updatedBefore;
  const values = {
    ":status": request.status,
    ...(before === undefined ? {} : { ":before": before }),
  };
  const olderThan = before === undefined ? "" : ` AND ${STATUS_INDEX.sortKey} < :before`;
  if (LISTED_STATUSES.has(request.status)) {
    return context.doc.send(
      new context.sdk.QueryCommand({
        TableName: context.tableName,
        IndexName: STATUS_INDEX.name,
        KeyConditionExpression: `${STATUS_INDEX.partitionKey} = :status${olderThan}`,
        ExpressionAttributeValues: values,
        // Filtered by target here, so a page of `limit` items may hold fewer matches.
        ...(request.targetKey === undefined ? { Limit: remaining } : {}),
        ExclusiveStartKey: startKey,
      }),
    );
  }
  return context.doc.send(
    new context.sdk.ScanCommand({
      TableName: context.tableName,
      FilterExpression: `#status = :status${olderThan}`,
      ExpressionAttributeNames: STATUS_NAME,
      ExpressionAttributeValues: values,
      ConsistentRead: true,
      ExclusiveStartKey: startKey,
    }),
  );
};

/**
 * Records in one status. The statuses an operator acts on (dead-lettered, rejected) are read
 * from the sparse index, oldest update first. Any other status needs a filtered scan of the
 * table, which is slow and costly on a large table — fine for an occasional diagnosis, not for
 * a dashboard — and returns the first `limit` matches found, not necessarily the oldest.
 */
export const listByStatus = async (
  context: StoreContext,
  request: ListByStatusRequest,
): Promise<EventRecord[]> => {
  const { targetKey, limit } = request;
  const records: EventRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  try {
    do {
      const page = await statusPage(context, request, startKey, limit - records.length);
      for (const item of page.Items ?? []) {
        const record = itemToRecord(item);
        if (targetKey === undefined || targetKeyOfRecord(record) === targetKey)
          records.push(record);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && records.length < limit);
  } catch (error) {
    return storeFailure(context, error, "listByStatus");
  }
  // A scan stops at `limit` matches in table order, so these are some of the matching records,
  // not necessarily the oldest; they are sorted like the index's for a consistent listing.
  return LISTED_STATUSES.has(request.status)
    ? records.slice(0, limit)
    : records.sort((a, b) => a.updatedAt.localeCompare(b.updatedAt)).slice(0, limit);
};

import { STATUS_INDEX } from "../../contract/record-table.js";
import type { ListByStatusRequest, ListRecentRequest, StatusListing } from "../../core/ports.js";
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
  /** Items the page read, before any filter. */
  readonly ScannedCount?: number;
};

/**
 * One page of items in the request's status: a Query of the sparse index for a listed status, a
 * filtered Scan otherwise. `pageLimit` bounds the items the page reads (undefined: DynamoDB's
 * 1 MB page).
 */
const statusPage = (
  context: StoreContext,
  request: ListByStatusRequest,
  startKey: Record<string, unknown> | undefined,
  pageLimit: number | undefined,
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
        Limit: pageLimit,
        ExclusiveStartKey: startKey,
      }),
    );
  }
  return scanPage(context, `#status = :status${olderThan}`, values, startKey, pageLimit);
};

/** One page of a filtered Scan of the table; `pageLimit` bounds the items it reads. */
const scanPage = (
  context: StoreContext,
  filter: string,
  values: Record<string, unknown> | undefined,
  startKey: Record<string, unknown> | undefined,
  pageLimit: number | undefined,
): Promise<Page> =>
  context.doc.send(
    new context.sdk.ScanCommand({
      TableName: context.tableName,
      FilterExpression: filter,
      ExpressionAttributeNames: STATUS_NAME,
      ExpressionAttributeValues: values,
      // Eventually consistent, at half the read units: a listing is a look, not a decision.
      ConsistentRead: false,
      Limit: pageLimit,
      ExclusiveStartKey: startKey,
    }),
  );

/**
 * Records in one status. The statuses an operator acts on (dead-lettered, rejected) are read
 * from the sparse index, oldest update first. Any other status needs a filtered scan of the
 * table, which is slow and costly on a large table — fine for an occasional diagnosis, not for
 * a dashboard unless `maxItemsRead` bounds it — and returns the first `limit` matches found, not
 * necessarily the oldest.
 */
export const listByStatus = async (
  context: StoreContext,
  request: ListByStatusRequest,
): Promise<StatusListing> => {
  const { targetKey, limit, maxItemsRead = Number.POSITIVE_INFINITY } = request;
  const fromIndex = LISTED_STATUSES.has(request.status);
  // Without a filter, an index page's items are all matches: read no more than are wanted.
  const everyItemMatches = fromIndex && targetKey === undefined;
  const records: EventRecord[] = [];
  let read = 0;
  let startKey: Record<string, unknown> | undefined;
  try {
    do {
      const wanted = everyItemMatches ? limit - records.length : Number.POSITIVE_INFINITY;
      const pageLimit = Math.max(1, Math.min(wanted, maxItemsRead - read));
      const page = await statusPage(
        context,
        request,
        startKey,
        Number.isFinite(pageLimit) ? pageLimit : undefined,
      );
      read += page.ScannedCount ?? page.Items?.length ?? 0;
      for (const item of page.Items ?? []) {
        const record = itemToRecord(item);
        if (targetKey === undefined || targetKeyOfRecord(record) === targetKey)
          records.push(record);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && records.length < limit && read < maxItemsRead);
  } catch (error) {
    return storeFailure(context, error, "listByStatus");
  }
  const cutShort = startKey !== undefined && records.length < limit;
  // A scan stops at `limit` matches in table order, so these are some of the matching records,
  // not necessarily the oldest; they are sorted like the index's for a consistent listing.
  const listed = fromIndex
    ? records.slice(0, limit)
    : records.sort((a, b) => a.updatedAt.localeCompare(b.updatedAt)).slice(0, limit);
  return { records: listed, cutShort };
};

const newestFirst = (a: EventRecord, b: EventRecord): number =>
  b.updatedAt.localeCompare(a.updatedAt);

/**
 * The most recently updated records, whatever their status: a scan, since no index orders every
 * record by time (the status index holds only the listed statuses, to keep the hot path's writes
 * off it). Only event records carry `status`; the table's breaker and limit items do not.
 */
export const listRecent = async (
  context: StoreContext,
  request: ListRecentRequest,
): Promise<StatusListing> => {
  const { targetKey, limit, updatedBefore, maxItemsRead = Number.POSITIVE_INFINITY } = request;
  const filter = `attribute_exists(#status)${updatedBefore === undefined ? "" : ` AND ${STATUS_INDEX.sortKey} < :before`}`;
  const values = updatedBefore === undefined ? undefined : { ":before": updatedBefore };
  let newest: EventRecord[] = [];
  let read = 0;
  let startKey: Record<string, unknown> | undefined;
  try {
    do {
      const left = maxItemsRead - read;
      const page = await scanPage(
        context,
        filter,
        values,
        startKey,
        Number.isFinite(left) ? Math.max(1, left) : undefined,
      );
      read += page.ScannedCount ?? page.Items?.length ?? 0;
      const matching = (page.Items ?? [])
        .map(itemToRecord)
        .filter((r) => targetKey === undefined || targetKeyOfRecord(r) === targetKey);
      // Kept to `limit` as the pages come, so a large table costs reads, not memory.
      newest = [...newest, ...matching].sort(newestFirst).slice(0, limit);
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && read < maxItemsRead);
  } catch (error) {
    return storeFailure(context, error, "listRecent");
  }
  return { records: newest, cutShort: startKey !== undefined };
};

import { DUE_INDEX } from "../../contract/record-table.js";
import type { ListStuckRequest, StatusListing } from "../../core/ports.js";
import type { EventRecord } from "../../core/record.js";
import { isStuck } from "../../core/stuck.js";
import { isoOf } from "../../core/time-format.js";
import { dueBucketsBetween } from "../dynamo-due-bucket.js";
import { get } from "./reads.js";
import { type StoreContext, storeFailure } from "./store-context.js";

const DAY_MS = 86_400_000;

/** The event ids of one due bucket due before the cutoff, from the keys-only index. */
const overdueIds = async (
  context: StoreContext,
  bucket: string,
  cutoffIso: string,
): Promise<string[]> => {
  const ids: string[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.doc.send(
      new context.sdk.QueryCommand({
        TableName: context.tableName,
        IndexName: DUE_INDEX.name,
        KeyConditionExpression: "#bucket = :bucket AND #due < :cutoff",
        ExpressionAttributeNames: { "#bucket": DUE_INDEX.partitionKey, "#due": DUE_INDEX.sortKey },
        ExpressionAttributeValues: { ":bucket": bucket, ":cutoff": cutoffIso },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) ids.push(String(item.eventId));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return ids;
};

/**
 * Stuck events: the due index's buckets from `lookbackDays` before the cutoff to the cutoff's
 * day, each queried for records due before the cutoff, and each candidate read back consistently
 * (the index is eventually consistent: a candidate may have been claimed since).
 */
export const listStuck = async (
  context: StoreContext,
  request: ListStuckRequest,
): Promise<StatusListing> => {
  const { cutoffMs, lookbackDays, limit } = request;
  const records: EventRecord[] = [];
  let cutShort = false;
  try {
    for (const bucket of dueBucketsBetween(cutoffMs - lookbackDays * DAY_MS, cutoffMs)) {
      for (const eventId of await overdueIds(context, bucket, isoOf(cutoffMs))) {
        const record = await get(context, eventId);
        if (record === undefined || !isStuck(record, cutoffMs)) continue;
        if (records.length === limit) cutShort = true;
        else records.push(record);
      }
    }
  } catch (error) {
    return storeFailure(context, error, "listStuck");
  }
  const oldestDue = (a: EventRecord, b: EventRecord): number =>
    (a.nextAttemptAt ?? "").localeCompare(b.nextAttemptAt ?? "");
  return { records: records.sort(oldestDue), cutShort };
};

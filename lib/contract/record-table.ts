/*
 * The DynamoDB record table's key, TTL attribute and status index: the construct creates the
 * table with these and the store (lib/adapters/dynamo-record-item.ts) reads and writes them.
 */

/** The record item's partition key: the event id. */
export const RECORD_KEY = "eventId";

/** The attribute DynamoDB's TTL reads: when a finished record may be removed (epoch seconds). */
export const TTL_ATTRIBUTE = "expiresAt";

/** The sparse index listing records by status (only the statuses an operator lists). */
export const STATUS_INDEX = {
  name: "byStatus",
  partitionKey: "listedStatus",
  sortKey: "updatedAt",
} as const;

/**
 * The sparse index of waiting records by when they are due: only a record waiting for a message
 * (retry scheduled, scheduled, deferred) carries `dueBucket`, set by the write that already puts
 * it there and removed by the claim that ends the wait, so a delivered-first-time event never
 * writes to it. Its sort key is the record's own `nextAttemptAt`. A stuck-event sweep queries the
 * buckets that have come due instead of scanning the table (docs/design-notes.md).
 */
export const DUE_INDEX = {
  name: "byDue",
  partitionKey: "dueBucket",
  sortKey: "nextAttemptAt",
} as const;

/**
 * The partitions each day of {@link DUE_INDEX} is spread over: one index partition takes about
 * 1,000 writes a second, so 8 take a day's retries at 8,000 a second; a sweep queries 8 per day.
 */
export const DUE_BUCKET_SHARDS = 8;

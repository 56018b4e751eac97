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

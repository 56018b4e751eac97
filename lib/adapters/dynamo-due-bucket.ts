import { createHash } from "node:crypto";
import { DUE_BUCKET_SHARDS } from "../contract/record-table.js";

/*
 * The due index's partition key (lib/contract/record-table.ts DUE_INDEX): the due day and a
 * shard from the event id, so one day's waiting records spread over DUE_BUCKET_SHARDS partitions
 * and a sweep reads only the days that have come due.
 */

const DAY_MS = 86_400_000;

const shardOf = (eventId: string): number =>
  createHash("sha256").update(eventId).digest().readUInt32BE(0) % DUE_BUCKET_SHARDS;

/** The bucket of a record due at `dueIso` (an ISO 8601 UTC time, as `nextAttemptAt` is stored). */
export const dueBucketOf = (eventId: string, dueIso: string): string =>
  `${dueIso.slice(0, 10)}#${shardOf(eventId)}`;

/** Every bucket of the days from `fromMs` to `toMs`, both included, oldest first. */
export const dueBucketsBetween = (fromMs: number, toMs: number): string[] => {
  const buckets: string[] = [];
  for (let day = Math.floor(fromMs / DAY_MS); day <= Math.floor(toMs / DAY_MS); day++) {
    const date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    for (let shard = 0; shard < DUE_BUCKET_SHARDS; shard++) buckets.push(`${date}#${shard}`);
  }
  return buckets;
};

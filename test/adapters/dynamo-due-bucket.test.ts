import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dueBucketOf, dueBucketsBetween } from "../../lib/adapters/dynamo-due-bucket.js";
import { DUE_BUCKET_SHARDS } from "../../lib/contract/record-table.js";

const DAY_MS = 86_400_000;
const instant = fc.integer({ min: Date.parse("2020-01-01"), max: Date.parse("2040-01-01") });

describe("due buckets", () => {
  it("put every due time in a bucket a sweep of its day queries", () => {
    fc.assert(
      fc.property(fc.string(), instant, fc.nat(40), (eventId, dueMs, daysLater) => {
        const bucket = dueBucketOf(eventId, new Date(dueMs).toISOString());
        const sweepTo = dueMs + daysLater * DAY_MS;
        expect(dueBucketsBetween(dueMs - (dueMs % DAY_MS), sweepTo)).toContain(bucket);
      }),
    );
  });

  it("query each day's every shard once, oldest day first", () => {
    const buckets = dueBucketsBetween(
      Date.parse("2026-12-01T23:00Z"),
      Date.parse("2026-12-02T01:00Z"),
    );

    expect(buckets).toHaveLength(2 * DUE_BUCKET_SHARDS);
    expect(new Set(buckets).size).toBe(buckets.length);
    expect(buckets[0]).toBe("2026-12-01#0");
    expect(buckets.at(-1)).toBe(`2026-12-02#${DUE_BUCKET_SHARDS - 1}`);
  });
});

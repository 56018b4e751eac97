import { RATE_WINDOW_MS, rateBatchSize, rateWindowOf } from "./target-limits.js";

/*
 * One instance's share of a target's rate window (lib/app/orchestrator/target-limits.ts): the
 * calls the shared counter counted for it and it has not made yet. Pure values; the counter and
 * the map that keeps the buckets are the orchestrator's business.
 */

/** This instance's share of a target's rate window: calls counted for it and not yet made. */
export interface RateBucket {
  /** The window the counter counted them into (later than this clock's, if it is behind). */
  readonly windowStartMs: number;
  readonly tokens: number;
  readonly used: number;
  readonly usedLastWindow: number;
  /** The counter turned part of an ask away: the window is full, ask one at a time. */
  readonly full: boolean;
}

/** The bucket for the window `nowMs` falls in: a new window drops what the last one left. */
export const bucketAt = (bucket: RateBucket | undefined, nowMs: number): RateBucket => {
  const windowStartMs = rateWindowOf(nowMs);
  if (bucket !== undefined && windowStartMs <= bucket.windowStartMs) return bucket;
  const follows = bucket !== undefined && windowStartMs === bucket.windowStartMs + RATE_WINDOW_MS;
  return {
    windowStartMs,
    tokens: 0,
    used: 0,
    usedLastWindow: follows ? bucket.used : 0,
    full: false,
  };
};

/** The bucket after a call spent one of its tokens; undefined when it has none left. */
export const tokenSpent = (bucket: RateBucket): RateBucket | undefined =>
  bucket.tokens > 0 ? { ...bucket, tokens: bucket.tokens - 1, used: bucket.used + 1 } : undefined;

/** How many calls to ask the counter for when the bucket is empty (see {@link rateBatchSize}). */
export const askSize = (bucket: RateBucket, limit: number): number =>
  rateBatchSize(limit, Math.max(bucket.usedLastWindow, bucket.used), bucket.full);

/** What the counter granted an ask counted into the window starting at `windowStartMs`. */
export interface RateGrant {
  readonly windowStartMs: number;
  readonly granted: number;
  /** Part of the ask was turned away: the window is full. */
  readonly full: boolean;
}

/**
 * The bucket keeping what the counter granted beyond the call that asked, for the window it was
 * counted in; undefined when the bucket has moved on to a later window meanwhile (another ask
 * did), since calls counted into one window are never spent in a later one.
 */
export const grantKept = (
  bucket: RateBucket | undefined,
  grant: RateGrant,
): RateBucket | undefined => {
  if (bucket !== undefined && bucket.windowStartMs > grant.windowStartMs) return undefined;
  const current = bucketAt(bucket, grant.windowStartMs);
  return {
    ...current,
    full: current.full || grant.full,
    tokens: current.tokens + Math.max(0, grant.granted - 1),
    used: current.used + (grant.granted > 0 ? 1 : 0),
  };
};

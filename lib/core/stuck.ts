import type { EventRecord } from "./record.js";
import { EventStatus, isTerminal } from "./status.js";

/*
 * A stuck event: the design promises every accepted event is terminal or has a live message. A
 * waiting record whose next attempt is long past, with no claim since, has none left: its message
 * was deleted by hand, lost to a bug, or parked in the internal queue's dead-letter queue.
 */

/**
 * How long past its due time a waiting event must be before it counts as stuck, by default: the
 * deployed visibility timeout (6 × the 60 s function timeout) × maxReceiveCount (10). A message
 * whose every receive failed is retried that long before SQS parks it, so no live message is
 * later than this.
 */
export const DEFAULT_STUCK_AFTER_SECONDS = 3600;

/** The margin as the construct derives it: every receive a live message may still get. */
export const stuckAfterSecondsOf = (settings: {
  readonly visibilityTimeoutSeconds: number;
  readonly maxReceiveCount: number;
}): number => settings.visibilityTimeoutSeconds * settings.maxReceiveCount;

/**
 * Whether a record, read consistently, is stuck at `cutoffMs` (now − the margin): not terminal,
 * not held under a live lease, and due before the cutoff. A record whose due time is unknown is
 * not judged here: it never entered the due index.
 */
export const isStuck = (record: EventRecord, cutoffMs: number): boolean => {
  if (isTerminal(record.status)) return false;
  if (record.status === EventStatus.IN_FLIGHT) return false;
  if (record.nextAttemptAt === undefined) return false;
  return Date.parse(record.nextAttemptAt) < cutoffMs;
};

/**
 * How many days back a stuck listing reads the due index by default: the default record
 * retention. A stuck record has no TTL, so it stays in the index until someone acts.
 */
export const DEFAULT_STUCK_LOOKBACK_DAYS = 30;

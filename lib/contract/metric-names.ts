/*
 * Metric names and dimensions: the functions emit them and the construct's dashboard and alarms
 * read them, so they live here, beside neither.
 */

/** The counters the orchestrator emits; names match the CloudWatch dashboard. */
export const MetricName = {
  DELIVERED: "delivered",
  RETRY_SCHEDULED: "retry_scheduled",
  REJECTED: "rejected",
  DEAD_LETTERED: "dead_lettered",
  INVALID_ENVELOPE: "invalid_envelope",
  DUPLICATE_SUPPRESSED: "duplicate_suppressed",
  STALE_DROPPED: "stale_dropped",
  LEASE_CONFLICT: "lease_conflict",
  LEASE_LOST: "lease_lost",
  DRAINED: "drained",
  HOP: "hop",
  /** An event re-sent for later because its target's circuit breaker was open: no attempt spent. */
  DEFERRED: "deferred",
  /** A producer message with a different envelope under an existing event id: never attempted. */
  CONFLICTING_RESUBMISSION: "conflicting_resubmission",
  /** A producer message carrying Ricochet's reserved attributes: dead-lettered as invalid. */
  FORGED_ATTRIBUTES: "forged_attributes",
  /** A message for a cancelled event, dropped on arrival without a call. */
  CANCELLED_DROPPED: "cancelled_dropped",
  /** A copy ahead of its record whose issuer never recorded it: dropped. */
  ORPHAN_DROPPED: "orphan_dropped",
  MESSAGE_FAILED: "message_failed",
  ATTEMPT_LATENCY: "attempt_latency",
  /** A message whose event's policy override was clamped to the deployment's limits. */
  POLICY_CLAMPED: "policy_clamped",
  /**
   * How long the target of an event an open breaker turned away has been failing (since its
   * breaker opened from closed), in ms: the "breaker open too long" alarm's metric. It has no
   * target dimension, so its maximum is the oldest outage among the targets turning events away.
   */
  BREAKER_OPEN_AGE: "breaker_open_age",
  /**
   * Events the stuck sweep found waiting long past due with no message left (lib/core/stuck.ts),
   * emitted on every sweep, zero included, so the stuck-events alarm always has a datum.
   */
  STUCK_EVENTS: "stuck_events",
} as const;

export type MetricName = (typeof MetricName)[keyof typeof MetricName];

/** The name of the per-target metrics' dimension. */
export const TARGET_DIMENSION = "target";

/** The `target` value every target not named for metrics is counted under. */
export const OTHER_TARGETS = "other";

/** The most targets a deployment may name for metrics of their own (see `metricTargetOf`, lib/core/observability.ts). */
export const MAX_METRIC_TARGETS = 20;

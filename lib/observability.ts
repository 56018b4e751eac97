/**
 * The logging and metrics the orchestrator and redrive need, as small ports: Powertools Logger
 * and Metrics satisfy them in Lambda, and tests and the simulation pass in-memory ones.
 */

/** Structured logging; Powertools' Logger has this shape. */
export interface Log {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

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
  RECORD_FAILED: "record_failed",
  ATTEMPT_LATENCY: "attempt_latency",
  /** A message whose event's policy override was clamped to the deployment's limits. */
  POLICY_CLAMPED: "policy_clamped",
  /**
   * How long the target of an event an open breaker turned away has been failing (since its
   * breaker opened from closed), in ms: the "breaker open too long" alarm's metric. It has no
   * target dimension, so its maximum is the oldest outage among the targets turning events away.
   */
  BREAKER_OPEN_AGE: "breaker_open_age",
} as const;
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

/** The name of the per-target metrics' dimension. */
export const TARGET_DIMENSION = "target";
/** The `target` value every target not named for metrics is counted under. */
export const OTHER_TARGETS = "other";
/** The most targets a deployment may name for metrics of their own (see {@link metricTargetOf}). */
export const MAX_METRIC_TARGETS = 20;

/**
 * The `target` dimension's value for a target key: the key itself if the deployment named it
 * (`targetMetrics`, at most {@link MAX_METRIC_TARGETS}), else {@link OTHER_TARGETS}. The dimension's
 * values are thereby bounded by configuration, never by traffic: each value is a custom metric
 * CloudWatch bills for, and a producer could otherwise mint one per URL.
 */
export const metricTargetOf = (key: string, named: ReadonlySet<string>): string =>
  named.has(key) ? key : OTHER_TARGETS;

export interface Metrics {
  count(name: MetricName, value?: number): void;
  /** Counts under the `target` dimension; `target` comes from {@link metricTargetOf}. */
  countForTarget(name: MetricName, target: string, value?: number): void;
  /** A duration in milliseconds. */
  timing(name: MetricName, milliseconds: number): void;
}

export const silentLog: Log = { info: () => {}, warn: () => {}, error: () => {} };

/** Metrics kept in memory: used by tests, the simulation and local runs to read counts back. */
export class CountingMetrics implements Metrics {
  public readonly counts = new Map<MetricName, number>();
  public readonly timings = new Map<MetricName, number[]>();
  /** Per-target counts, by the `target` dimension's value. */
  public readonly targetCounts = new Map<string, Map<MetricName, number>>();

  public count(name: MetricName, value = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + value);
  }

  public countForTarget(name: MetricName, target: string, value = 1): void {
    const counts = this.targetCounts.get(target) ?? new Map<MetricName, number>();
    counts.set(name, (counts.get(name) ?? 0) + value);
    this.targetCounts.set(target, counts);
  }

  /** Empties every count and timing (after they were written out). */
  public clear(): void {
    this.counts.clear();
    this.timings.clear();
    this.targetCounts.clear();
  }

  public timing(name: MetricName, milliseconds: number): void {
    const list = this.timings.get(name) ?? [];
    list.push(milliseconds);
    this.timings.set(name, list);
  }

  public get(name: MetricName): number {
    return this.counts.get(name) ?? 0;
  }
}

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
  /** A copy ahead of its record whose issuer never recorded it: dropped. */
  ORPHAN_DROPPED: "orphan_dropped",
  RECORD_FAILED: "record_failed",
  ATTEMPT_LATENCY: "attempt_latency",
  /** A message whose event's policy override was clamped to the deployment's limits. */
  POLICY_CLAMPED: "policy_clamped",
} as const;
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

export interface Metrics {
  count(name: MetricName, value?: number): void;
  /** A duration in milliseconds. */
  timing(name: MetricName, milliseconds: number): void;
}

export const silentLog: Log = { info: () => {}, warn: () => {}, error: () => {} };

/** Metrics kept in memory: used by tests, the simulation and local runs to read counts back. */
export class CountingMetrics implements Metrics {
  public readonly counts = new Map<MetricName, number>();
  public readonly timings = new Map<MetricName, number[]>();

  public count(name: MetricName, value = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + value);
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

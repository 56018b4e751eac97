import {
  type MAX_METRIC_TARGETS,
  type MetricName,
  OTHER_TARGETS,
} from "../contract/metric-names.js";
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

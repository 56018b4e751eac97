import { Logger } from "@aws-lambda-powertools/logger";
import { MetricUnit, Metrics as PowertoolsMetrics } from "@aws-lambda-powertools/metrics";
import { type MetricName, TARGET_DIMENSION } from "../contract/metric-names.js";
import { CountingMetrics, type Log, type Metrics } from "../core/observability.js";

/** Structured JSON logs through Powertools Logger (service name from POWERTOOLS_SERVICE_NAME). */
export const createPowertoolsLog = (): Log & { readonly logger: Logger } => {
  const logger = new Logger({ serviceName: "ricochet" });
  return {
    logger,
    info: (message, ...extra) => logger.info(message, ...extra),
    warn: (message, ...extra) => logger.warn(message, ...extra),
    error: (message, ...extra) => logger.error(message, ...extra),
  };
};

/**
 * Metrics in CloudWatch Embedded Metric Format through Powertools. Counts are summed in memory
 * and written once per invocation, so a batch of ten costs one EMF line, not ten.
 */
export class EmbeddedMetrics implements Metrics {
  private readonly buffer = new CountingMetrics();
  private readonly emf: PowertoolsMetrics;

  public constructor(namespace = process.env.POWERTOOLS_METRICS_NAMESPACE ?? "Ricochet") {
    this.emf = new PowertoolsMetrics({ namespace, serviceName: "ricochet" });
  }

  public count(name: MetricName, value = 1): void {
    this.buffer.count(name, value);
  }

  public countForTarget(name: MetricName, target: string, value = 1): void {
    this.buffer.countForTarget(name, target, value);
  }

  public timing(name: MetricName, milliseconds: number): void {
    this.buffer.timing(name, milliseconds);
  }

  /** Writes what was gathered since the last flush. Call once at the end of each invocation. */
  public flush(): void {
    // One line per target and metric: a dimension set applies to a whole EMF line.
    for (const [target, counts] of this.buffer.targetCounts) {
      for (const [name, value] of counts) {
        const single = this.emf.singleMetric();
        single.addDimension(TARGET_DIMENSION, target);
        single.addMetric(name, MetricUnit.Count, value);
      }
    }
    const shared = this.buffer.counts.size > 0 || this.buffer.timings.size > 0;
    for (const [name, value] of this.buffer.counts)
      this.emf.addMetric(name, MetricUnit.Count, value);
    for (const [name, values] of this.buffer.timings) {
      for (const value of values) this.emf.addMetric(name, MetricUnit.Milliseconds, value);
    }
    this.buffer.clear();
    if (shared) this.emf.publishStoredMetrics();
  }
}

import { Duration } from "aws-cdk-lib";
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Metric,
  Stats,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { MetricName } from "../contract/metric-names.js";

/** Value of POWERTOOLS_SERVICE_NAME, which Powertools adds to every metric as `service`. */
export const SERVICE_NAME = "ricochet";

/** What {@link OrchestratorMonitoring} watches. */
export interface OrchestratorMonitoringProps {
  readonly ingressQueue: IQueue;
  /** Ricochet's own queue (retries, hops, redrives). */
  readonly internalQueue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly orchestratorFunction: IFunction;
  readonly metricsNamespace: string;
  readonly deadLetterAlarmThreshold: number;
  readonly oldestMessageAge: Duration;
  /** How long a breaker may stay open before its alarm fires; undefined: breakers are off. */
  readonly breakerOpenAge?: Duration | undefined;
}

const PERIOD = Duration.minutes(1);

/** How often the operator function sweeps for stuck events (an EventBridge schedule). */
export const STUCK_SWEEP_INTERVAL = Duration.minutes(5);

/** The metrics that both an alarm and the dashboard read. */
interface WatchedMetrics {
  readonly deadLetterDepth: Metric;
  readonly ingressDepth: Metric;
  readonly internalDepth: Metric;
  readonly oldestAge: Metric;
  readonly errors: Metric;
  readonly breakerOpenAge: Metric;
  readonly stuckEvents: Metric;
}

/** One of Ricochet's own EMF metrics, as Powertools publishes it (dimension `service`). */
const emfMetric = (namespace: string, metricName: string, statistic: string = Stats.SUM): Metric =>
  new Metric({
    namespace,
    metricName,
    dimensionsMap: { service: SERVICE_NAME },
    statistic,
    period: PERIOD,
  });

const queueDepth = (queue: IQueue): Metric =>
  queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: Stats.MAXIMUM });

const watchedMetrics = (props: OrchestratorMonitoringProps): WatchedMetrics => ({
  deadLetterDepth: queueDepth(props.deadLetterQueue),
  ingressDepth: queueDepth(props.ingressQueue),
  internalDepth: queueDepth(props.internalQueue),
  oldestAge: props.ingressQueue.metricApproximateAgeOfOldestMessage({
    period: PERIOD,
    statistic: Stats.MAXIMUM,
  }),
  errors: props.orchestratorFunction.metricErrors({ period: PERIOD, statistic: Stats.SUM }),
  breakerOpenAge: emfMetric(props.metricsNamespace, MetricName.BREAKER_OPEN_AGE, Stats.MAXIMUM),
  // Emitted once per sweep: its period is the sweep's, so no period reads as missing data.
  stuckEvents: emfMetric(props.metricsNamespace, MetricName.STUCK_EVENTS, Stats.MAXIMUM).with({
    period: STUCK_SWEEP_INTERVAL,
  }),
});

/**
 * An alarm that fires at or above its threshold; no data is not breaching, because every metric
 * watched here is silent when nothing is wrong (an empty queue, an idle function).
 */
const atOrAbove = (
  scope: Construct,
  id: string,
  alarm: { description: string; metric: Metric; threshold: number; evaluationPeriods: number },
): Alarm =>
  new Alarm(scope, id, {
    alarmDescription: alarm.description,
    metric: alarm.metric,
    threshold: alarm.threshold,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: alarm.evaluationPeriods,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });

const m = MetricName;

/** The dashboard's rows: outcomes and contention, refusals and outages, latency and queues. */
const dashboardRows = (namespace: string, metrics: WatchedMetrics): GraphWidget[][] => {
  const sums = (names: readonly string[]): Metric[] =>
    names.map((name) => emfMetric(namespace, name));
  return [
    [
      new GraphWidget({
        title: "Outcomes",
        width: 12,
        left: sums([
          m.DELIVERED,
          m.RETRY_SCHEDULED,
          m.REJECTED,
          m.DEAD_LETTERED,
          m.INVALID_ENVELOPE,
          m.POLICY_CLAMPED,
        ]),
      }),
      new GraphWidget({
        title: "Contention, hops, deferrals, draining and cancels",
        width: 12,
        left: sums([
          m.DEFERRED,
          m.DUPLICATE_SUPPRESSED,
          m.STALE_DROPPED,
          m.LEASE_CONFLICT,
          m.LEASE_LOST,
          m.MESSAGE_FAILED,
          m.HOP,
          m.DRAINED,
          m.ORPHAN_DROPPED,
          m.CANCELLED_DROPPED,
        ]),
      }),
    ],
    [
      new GraphWidget({
        // What producers sent that Ricochet refused to act on: forged attributes and other
        // envelopes under an existing event id. Non-zero means a producer needs a look.
        title: "Refused producer messages",
        width: 12,
        left: sums([m.FORGED_ATTRIBUTES, m.CONFLICTING_RESUBMISSION]),
      }),
      new GraphWidget({
        title: "Oldest outage of a target turning events away (ms); stuck events found",
        width: 12,
        left: [metrics.breakerOpenAge],
        right: [metrics.stuckEvents],
      }),
    ],
    [
      new GraphWidget({
        title: "Attempt latency (ms)",
        width: 8,
        left: [Stats.p(50), Stats.p(99), Stats.MAXIMUM].map((stat) =>
          emfMetric(namespace, m.ATTEMPT_LATENCY, stat),
        ),
      }),
      new GraphWidget({
        title: "Queue depths",
        width: 8,
        left: [
          metrics.ingressDepth.with({ label: "ingress visible" }),
          metrics.internalDepth.with({ label: "internal visible" }),
          metrics.deadLetterDepth.with({ label: "dead-letter visible" }),
        ],
      }),
      new GraphWidget({
        title: "Oldest ingress message (s) and orchestrator errors",
        width: 8,
        left: [metrics.oldestAge],
        right: [metrics.errors],
      }),
    ],
  ];
};

/**
 * Alarms and a dashboard for one orchestrator. The alarms have no actions: the owner of the
 * deployment decides who is paged (`alarm.addAlarmAction(...)`).
 */
export class OrchestratorMonitoring extends Construct {
  /** Fires when dead-lettered messages wait for an operator's decision. */
  public readonly deadLetterAlarm: Alarm;
  /** Fires when the ingress backlog is older than the configured age: delivery is stalling. */
  public readonly oldestMessageAlarm: Alarm;
  /** Fires when the orchestrator function itself fails (not when a target fails). */
  public readonly orchestratorErrorsAlarm: Alarm;
  /**
   * Fires when a target's breaker has been open (or probing) for longer than the configured age
   * while its events keep arriving. No data (no event turned away) is not breaching: a target
   * nobody sends to needs nobody.
   */
  public readonly breakerOpenAlarm: Alarm | undefined;
  /**
   * Fires when the scheduled sweep finds an event waiting long past due with no message left
   * (lib/core/stuck.ts): nothing will deliver it; `ricochet events --stuck` lists them.
   */
  public readonly stuckEventsAlarm: Alarm;
  public readonly dashboard: Dashboard;

  public constructor(scope: Construct, id: string, props: OrchestratorMonitoringProps) {
    super(scope, id);
    const metrics = watchedMetrics(props);
    this.deadLetterAlarm = atOrAbove(this, "DeadLetterAlarm", {
      description: "Ricochet dead-lettered events are waiting for a redrive decision.",
      metric: metrics.deadLetterDepth,
      threshold: props.deadLetterAlarmThreshold,
      evaluationPeriods: 1,
    });
    this.oldestMessageAlarm = atOrAbove(this, "OldestMessageAlarm", {
      description: "Ricochet's ingress backlog is older than expected: delivery is stalling.",
      metric: metrics.oldestAge,
      threshold: props.oldestMessageAge.toSeconds(),
      evaluationPeriods: 3,
    });
    this.orchestratorErrorsAlarm = atOrAbove(this, "OrchestratorErrorsAlarm", {
      description: "The Ricochet orchestrator function failed (a crash, not a target failure).",
      metric: metrics.errors,
      threshold: 1,
      evaluationPeriods: 1,
    });
    this.breakerOpenAlarm =
      props.breakerOpenAge === undefined
        ? undefined
        : atOrAbove(this, "BreakerOpenAlarm", {
            description:
              "A Ricochet target's circuit breaker has stayed open too long: its events are " +
              "waiting; `ricochet targets` shows which.",
            metric: metrics.breakerOpenAge,
            threshold: props.breakerOpenAge.toMilliseconds(),
            evaluationPeriods: 1,
          });
    this.stuckEventsAlarm = atOrAbove(this, "StuckEventsAlarm", {
      description:
        "Ricochet found events waiting long past due with no message left: nothing will deliver " +
        "them; `ricochet events --stuck` lists them, `ricochet replay` or a redrive restarts them.",
      metric: metrics.stuckEvents,
      threshold: 1,
      evaluationPeriods: 1,
    });
    this.dashboard = new Dashboard(this, "Dashboard", {
      widgets: dashboardRows(props.metricsNamespace, metrics),
    });
  }
}

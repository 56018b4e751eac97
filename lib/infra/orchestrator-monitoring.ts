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
  public readonly dashboard: Dashboard;

  public constructor(scope: Construct, id: string, props: OrchestratorMonitoringProps) {
    super(scope, id);
    const deadLetterDepth = props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      period: PERIOD,
      statistic: Stats.MAXIMUM,
    });
    const ingressDepth = props.ingressQueue.metricApproximateNumberOfMessagesVisible({
      period: PERIOD,
      statistic: Stats.MAXIMUM,
    });
    const oldestAge = props.ingressQueue.metricApproximateAgeOfOldestMessage({
      period: PERIOD,
      statistic: Stats.MAXIMUM,
    });
    const errors = props.orchestratorFunction.metricErrors({
      period: PERIOD,
      statistic: Stats.SUM,
    });

    this.deadLetterAlarm = new Alarm(this, "DeadLetterAlarm", {
      alarmDescription: "Ricochet dead-lettered events are waiting for a redrive decision.",
      metric: deadLetterDepth,
      threshold: props.deadLetterAlarmThreshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.oldestMessageAlarm = new Alarm(this, "OldestMessageAlarm", {
      alarmDescription: "Ricochet's ingress backlog is older than expected: delivery is stalling.",
      metric: oldestAge,
      threshold: props.oldestMessageAge.toSeconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.orchestratorErrorsAlarm = new Alarm(this, "OrchestratorErrorsAlarm", {
      alarmDescription:
        "The Ricochet orchestrator function failed (a crash, not a target failure).",
      metric: errors,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const emf = (metricName: string, statistic: string = Stats.SUM): Metric =>
      new Metric({
        namespace: props.metricsNamespace,
        metricName,
        dimensionsMap: { service: SERVICE_NAME },
        statistic,
        period: PERIOD,
      });
    const m = MetricName;
    const breakerOpenAge = emf(m.BREAKER_OPEN_AGE, Stats.MAXIMUM);
    this.breakerOpenAlarm =
      props.breakerOpenAge === undefined
        ? undefined
        : new Alarm(this, "BreakerOpenAlarm", {
            alarmDescription:
              "A Ricochet target's circuit breaker has stayed open too long: its events are " +
              "waiting; `ricochet targets` shows which.",
            metric: breakerOpenAge,
            threshold: props.breakerOpenAge.toMilliseconds(),
            comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            evaluationPeriods: 1,
            treatMissingData: TreatMissingData.NOT_BREACHING,
          });
    this.dashboard = new Dashboard(this, "Dashboard", {
      widgets: [
        [
          new GraphWidget({
            title: "Outcomes",
            width: 12,
            left: [
              m.DELIVERED,
              m.RETRY_SCHEDULED,
              m.REJECTED,
              m.DEAD_LETTERED,
              m.INVALID_ENVELOPE,
              m.POLICY_CLAMPED,
            ].map((name) => emf(name)),
          }),
          new GraphWidget({
            title: "Contention, hops, deferrals, draining and cancels",
            width: 12,
            left: [
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
            ].map((name) => emf(name)),
          }),
        ],
        [
          new GraphWidget({
            // What producers sent that Ricochet refused to act on: forged attributes and other
            // envelopes under an existing event id. Non-zero means a producer needs a look.
            title: "Refused producer messages",
            width: 12,
            left: [m.FORGED_ATTRIBUTES, m.CONFLICTING_RESUBMISSION].map((name) => emf(name)),
          }),
          new GraphWidget({
            title: "Oldest outage of a target turning events away (ms)",
            width: 12,
            left: [breakerOpenAge],
          }),
        ],
        [
          new GraphWidget({
            title: "Attempt latency (ms)",
            width: 8,
            left: [Stats.p(50), Stats.p(99), Stats.MAXIMUM].map((stat) =>
              emf(m.ATTEMPT_LATENCY, stat),
            ),
          }),
          new GraphWidget({
            title: "Queue depths",
            width: 8,
            left: [
              ingressDepth.with({ label: "ingress visible" }),
              props.internalQueue
                .metricApproximateNumberOfMessagesVisible({
                  period: PERIOD,
                  statistic: Stats.MAXIMUM,
                })
                .with({ label: "internal visible" }),
              deadLetterDepth.with({ label: "dead-letter visible" }),
            ],
          }),
          new GraphWidget({
            title: "Oldest ingress message (s) and orchestrator errors",
            width: 8,
            left: [oldestAge],
            right: [errors],
          }),
        ],
      ],
    });
  }
}

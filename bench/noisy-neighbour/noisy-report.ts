import { percentile } from "../support/schedule-error.js";
import type { ReceiverCall } from "../support/seeded-receiver.js";
import { TargetKind } from "./noisy-targets.js";

/** One event of a run: which kind of target it went to and when the producer sent it. */
export interface SubmittedEvent {
  readonly eventId: string;
  readonly kind: TargetKind;
  readonly submittedAt: number;
}

/** What one contender's run left behind, as the targets and the producer saw it. */
export interface NoisyObservation {
  readonly events: readonly SubmittedEvent[];
  /** When each event was first answered 200. */
  readonly deliveredAt: ReadonlyMap<string, number>;
  /** The calls the targets answered, per event id. */
  readonly calls: ReadonlyMap<string, readonly ReceiverCall[]>;
  /** When each call reached the down target while it was down. */
  readonly callsWhileDown: readonly number[];
  /** The down target's outage; absent in the all-healthy run. */
  readonly outage?: { readonly startedAt: number; readonly recoveredAt: number } | undefined;
  /**
   * Attempts the down target's events were charged against their budgets, when the contender
   * keeps a count (Ricochet's records); null for the baselines, whose every call is a receive
   * counted against `maxReceiveCount`, so their calls are their charge.
   */
  readonly attemptsCharged: number | null;
}

/** How the healthy targets fared. */
export interface HealthyFigures {
  readonly events: number;
  readonly delivered: number;
  /** From the producer's send to the target's first 200, in ms. */
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  /** Delivered events over the time from the first send to the last delivery. */
  readonly eventsPerSecond: number | null;
}

/** How the down target fared, and what it cost, over the rounds. */
export interface DownFigures {
  readonly events: number;
  readonly outageMs: number;
  readonly callsWhileDown: number;
  readonly callsPerMinuteWhileDown: number;
  /** Over all of the down target's events. */
  readonly attemptsCharged: number;
  readonly attemptsChargedPerEvent: number;
  /** Its events sent before it recovered. */
  readonly eventsBeforeRecovery: number;
  /** Of those, delivered once it recovered, by retries alone: the bench never redrives. */
  readonly deliveredAfterRecovery: number;
  /** Its events never delivered (dead-lettered, or still pending when the run gave up). */
  readonly undelivered: number;
  /** From the recovery to the last delivery of an event sent before it, in ms: the worst round. */
  readonly drainMs: number | null;
  /** The most calls it got in one second after recovering (worst round): how hard the backlog hits it. */
  readonly peakCallsPerSecondAfterRecovery: number;
}

/** A scenario's figure divided by the same contender's all-healthy figure. */
export interface VersusAllHealthy {
  readonly p50: number | null;
  readonly p99: number | null;
  readonly eventsPerSecond: number | null;
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

const ofKind = (observation: NoisyObservation, kind: TargetKind) =>
  observation.events.filter((event) => event.kind === kind);

/**
 * Latency and throughput of the events sent to healthy targets, over one or more rounds: the
 * latencies are pooled (a p99 over several rounds' events is steadier than any one round's), the
 * rate is all deliveries over the rounds' summed spans from first send to last delivery.
 */
export const healthyFigures = (rounds: readonly NoisyObservation[]): HealthyFigures => {
  let events = 0;
  let spanMs = 0;
  const latencies: number[] = [];
  for (const observation of rounds) {
    const sent = ofKind(observation, TargetKind.HEALTHY);
    events += sent.length;
    let lastDelivery: number | undefined;
    for (const event of sent) {
      const at = observation.deliveredAt.get(event.eventId);
      if (at === undefined) continue;
      latencies.push(at - event.submittedAt);
      lastDelivery = Math.max(lastDelivery ?? at, at);
    }
    if (lastDelivery !== undefined) {
      spanMs += lastDelivery - Math.min(...sent.map((event) => event.submittedAt));
    }
  }
  return {
    events,
    delivered: latencies.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    eventsPerSecond:
      latencies.length === 0 || !(spanMs > 0) ? null : round3((latencies.length / spanMs) * 1000),
  };
};

/** Calls per one-second bucket from `fromMs`, the busiest bucket's count. */
const peakPerSecond = (times: readonly number[], fromMs: number): number => {
  const buckets = new Map<number, number>();
  for (const at of times) {
    if (at < fromMs) continue;
    const bucket = Math.floor((at - fromMs) / 1000);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
  }
  return Math.max(0, ...buckets.values());
};

/** One round's raw counts for the down target. */
const downCounts = (observation: NoisyObservation) => {
  const { outage } = observation;
  if (outage === undefined) return undefined;
  const events = ofKind(observation, TargetKind.DOWN);
  const callsWhileDown = observation.callsWhileDown.filter(
    (at) => at >= outage.startedAt && at < outage.recoveredAt,
  ).length;
  const answered = events.flatMap((event) =>
    (observation.calls.get(event.eventId) ?? []).map((call) => call.startedAt),
  );
  const beforeRecovery = events.filter((event) => event.submittedAt < outage.recoveredAt);
  const deliveries = beforeRecovery.flatMap((event) => {
    const at = observation.deliveredAt.get(event.eventId);
    return at === undefined ? [] : [at];
  });
  return {
    events: events.length,
    outageMs: outage.recoveredAt - outage.startedAt,
    callsWhileDown,
    attemptsCharged: observation.attemptsCharged ?? callsWhileDown + answered.length,
    eventsBeforeRecovery: beforeRecovery.length,
    deliveredAfterRecovery: deliveries.filter((at) => at >= outage.recoveredAt).length,
    undelivered: events.filter((event) => !observation.deliveredAt.has(event.eventId)).length,
    drainMs: deliveries.length === 0 ? null : Math.max(...deliveries) - outage.recoveredAt,
    peak: peakPerSecond(answered, outage.recoveredAt),
  };
};

/**
 * The down target's figures over the rounds that had an outage (counts summed, calls per minute
 * over the summed outages, the worst drain and peak); null when none had.
 */
export const downFigures = (rounds: readonly NoisyObservation[]): DownFigures | null => {
  const counts = rounds.flatMap((observation) => downCounts(observation) ?? []);
  if (counts.length === 0) return null;
  const sum = (pick: (c: (typeof counts)[number]) => number) =>
    counts.reduce((total, c) => total + pick(c), 0);
  const events = sum((c) => c.events);
  const outageMs = sum((c) => c.outageMs);
  const callsWhileDown = sum((c) => c.callsWhileDown);
  const attemptsCharged = sum((c) => c.attemptsCharged);
  const drains = counts.flatMap((c) => (c.drainMs === null ? [] : [c.drainMs]));
  return {
    events,
    outageMs,
    callsWhileDown,
    callsPerMinuteWhileDown: outageMs > 0 ? round3((callsWhileDown / outageMs) * 60_000) : 0,
    attemptsCharged,
    attemptsChargedPerEvent: events === 0 ? 0 : round3(attemptsCharged / events),
    eventsBeforeRecovery: sum((c) => c.eventsBeforeRecovery),
    deliveredAfterRecovery: sum((c) => c.deliveredAfterRecovery),
    undelivered: sum((c) => c.undelivered),
    drainMs: drains.length === 0 ? null : Math.max(...drains),
    peakCallsPerSecondAfterRecovery: Math.max(...counts.map((c) => c.peak)),
  };
};

const ratio = (value: number | null, baseline: number | null): number | null =>
  value === null || baseline === null || baseline <= 0 ? null : round3(value / baseline);

/** Each healthy-target figure of a scenario as a multiple of the contender's all-healthy one. */
export const versusAllHealthy = (
  scenario: HealthyFigures,
  allHealthy: HealthyFigures,
): VersusAllHealthy => ({
  p50: ratio(scenario.p50Ms, allHealthy.p50Ms),
  p99: ratio(scenario.p99Ms, allHealthy.p99Ms),
  eventsPerSecond: ratio(scenario.eventsPerSecond, allHealthy.eventsPerSecond),
});

import {
  type NoiseBand,
  noiseBand,
  sideOfBand,
  type Verdict,
  verdictOf,
  widestBand,
} from "../support/noise-band.js";
import { type PairedRatio, pairedRatio, round3Ratio } from "../support/round-statistics.js";
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

/** What the comparisons of a scenario pair round by round: one contender's figures of one round. */
export interface RoundFigure {
  /** Its healthy targets' p99, send → first 200, in ms. */
  readonly healthyP99Ms: number | null;
  /** Calls that reached the down target per minute of its outage. */
  readonly downCallsPerMinute: number | null;
}

/** Calls/min read against the A/A band: fewer or more only outside it. */
type CallsVerdict = "fewer" | "more" | "within noise";

/** The subject against one other contender, round by round in the same run. */
export interface Versus {
  /** The other's healthy p99 ÷ the subject's: above 1 the subject's healthy targets are faster. */
  readonly healthyP99: PairedRatio | null;
  readonly healthyP99Verdict: Verdict | null;
  /** The subject's calls/min to the down target ÷ the other's: below 1 it calls it less. */
  readonly downCallsPerMinute: PairedRatio | null;
  readonly downCallsVerdict: CallsVerdict | null;
}

/** One figure's A/A ratios (twin ÷ original, per pair) and the widest band they give. */
interface FigureNoise {
  readonly ratios: readonly (PairedRatio | null)[];
  readonly band: NoiseBand | null;
}

/** How far apart the same code measured in this scenario, figure by figure. */
interface ScenarioNoise {
  /** The A/A pairs: [twin, original]. */
  readonly pairs: readonly (readonly [string, string])[];
  readonly healthyP99: FigureNoise;
  readonly downCallsPerMinute: FigureNoise;
}

/** The scenario's targets for the subject, in absolute figures of the same run. */
interface Claims {
  /** Its pooled healthy p99 is below every other contender's (its own twin aside). */
  readonly healthyP99Lowest: boolean | null;
  /** Its calls/min to the down target are below every other contender's (its own twin aside). */
  readonly downCallsPerMinuteLowest: boolean | null;
}

export interface ScenarioComparison {
  readonly noise: ScenarioNoise;
  /** Per other contender (the subject's twin aside). */
  readonly versus: Record<string, Versus>;
  readonly claims: Claims;
}

/** Paired ratio over the rounds where both figures exist. */
const pairedOf = (
  ours: readonly (number | null)[],
  theirs: readonly (number | null)[],
): PairedRatio | null => {
  const rounds = ours.flatMap((value, round) => {
    const other = theirs[round];
    return value === null || other === null || other === undefined ? [] : [{ value, other }];
  });
  return round3Ratio(
    pairedRatio(
      rounds.map((r) => r.value),
      rounds.map((r) => r.other),
    ),
  );
};

const callsVerdictOf = (ratio: PairedRatio | null, band: NoiseBand | null): CallsVerdict | null => {
  const side = sideOfBand(ratio, band);
  if (side === null) return null;
  return side === "below" ? "fewer" : side === "above" ? "more" : "within noise";
};

/** Strictly below every other value; null when the subject's or all others' are missing. */
const lowest = (subject: number | null, others: readonly (number | null)[]): boolean | null => {
  const known = others.filter((value): value is number => value !== null);
  if (subject === null || known.length === 0) return null;
  return known.every((value) => subject < value);
};

/**
 * Compares `subject` with every other contender of one scenario: per-round ratios in the same
 * run, read against the widest of the A/A pairs' bands (a difference only outside it), and the
 * targets in absolute figures, pooled over the rounds. `perRound` and `pooled` are by contender.
 */
export const compareScenario = (input: {
  readonly subject: string;
  readonly twins: readonly (readonly [string, string])[];
  readonly perRound: Readonly<Record<string, readonly RoundFigure[]>>;
  readonly pooled: Readonly<Record<string, RoundFigure>>;
}): ScenarioComparison => {
  const { subject, twins, perRound, pooled } = input;
  const series = (name: string, pick: (figure: RoundFigure) => number | null) =>
    (perRound[name] ?? []).map(pick);
  const p99 = (name: string) => series(name, (f) => f.healthyP99Ms);
  const calls = (name: string) => series(name, (f) => f.downCallsPerMinute);
  const figureNoise = (of: (name: string) => (number | null)[]): FigureNoise => {
    const ratios = twins.map(([twin, original]) => pairedOf(of(twin), of(original)));
    return { ratios, band: widestBand(ratios.map(noiseBand)) };
  };
  const noise: ScenarioNoise = {
    pairs: twins,
    healthyP99: figureNoise(p99),
    downCallsPerMinute: figureNoise(calls),
  };
  const ownTwins = new Set(twins.filter(([, original]) => original === subject).map(([t]) => t));
  const others = Object.keys(pooled).filter((name) => name !== subject && !ownTwins.has(name));
  const versus = Object.fromEntries(
    others.map((name): [string, Versus] => {
      const healthyP99 = pairedOf(p99(name), p99(subject));
      const downCallsPerMinute = pairedOf(calls(subject), calls(name));
      return [
        name,
        {
          healthyP99,
          healthyP99Verdict: verdictOf(healthyP99, noise.healthyP99.band),
          downCallsPerMinute,
          downCallsVerdict: callsVerdictOf(downCallsPerMinute, noise.downCallsPerMinute.band),
        },
      ];
    }),
  );
  const pooledOf = (name: string) =>
    pooled[name] ?? { healthyP99Ms: null, downCallsPerMinute: null };
  return {
    noise,
    versus,
    claims: {
      healthyP99Lowest: lowest(
        pooledOf(subject).healthyP99Ms,
        others.map((name) => pooledOf(name).healthyP99Ms),
      ),
      downCallsPerMinuteLowest: lowest(
        pooledOf(subject).downCallsPerMinute,
        others.map((name) => pooledOf(name).downCallsPerMinute),
      ),
    },
  };
};

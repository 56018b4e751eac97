import { deliveryLatency, perDelivered } from "../rate-limited/rate-figures.js";
import { mean3 } from "../support/paired-rounds.js";
import {
  capacityPerSecond,
  type SaturatingCall,
  SaturatingTarget,
  type SaturationShape,
} from "./partners.js";

/** What one run observed: both targets' calls, the events' times and the measured window. */
export interface SaturatingObservation {
  readonly log: readonly SaturatingCall[];
  readonly submittedAt: ReadonlyMap<string, number>;
  readonly deliveredAt: ReadonlyMap<string, number>;
  /** Which target each event was sent to. */
  readonly targetOf: ReadonlyMap<string, SaturatingTarget>;
  /** The sending stretch (ms since epoch): the partner has a backlog from its start to its end. */
  readonly windowStartMs: number;
  readonly windowEndMs: number;
  readonly wallMs: number;
  readonly failedBatches: number;
}

/** One run's (or the pooled runs') figures for one contender. */
export interface SaturatingFigures {
  /** Partner 200s per second in the window, as a share of {@link capacityPerSecond}. */
  readonly goodputShare: number;
  readonly overloadsPerDelivered: number | null;
  readonly attemptsPerDelivered: number | null;
  readonly partnerP50Ms: number | null;
  readonly partnerP99Ms: number | null;
  readonly healthyP50Ms: number | null;
  readonly healthyP99Ms: number | null;
  readonly delivered: number;
  readonly deadLettered: number;
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/** The entries of `times` whose event went to `target`. */
const toTarget = (
  times: ReadonlyMap<string, number>,
  targetOf: ReadonlyMap<string, SaturatingTarget>,
  target: SaturatingTarget,
): Map<string, number> => new Map([...times].filter(([id]) => targetOf.get(id) === target));

const partnerCalls = (log: readonly SaturatingCall[]) =>
  log.filter((call) => call.target === SaturatingTarget.PARTNER);

/** Goodput in the window as a share of what the partner could give. */
const goodputShareOf = (
  run: Pick<SaturatingObservation, "log" | "windowStartMs" | "windowEndMs">,
  shape: SaturationShape,
): number => {
  const seconds = (run.windowEndMs - run.windowStartMs) / 1000;
  if (seconds <= 0) return 0;
  const ok = partnerCalls(run.log).filter(
    (c) => c.status === 200 && c.answeredAt >= run.windowStartMs && c.answeredAt < run.windowEndMs,
  );
  return round3(ok.length / seconds / capacityPerSecond(shape));
};

/** Figures over the calls, sends and deliveries of one or more runs. */
const figuresOf = (
  log: readonly SaturatingCall[],
  submittedAt: ReadonlyMap<string, number>,
  deliveredAt: ReadonlyMap<string, number>,
  targetOf: ReadonlyMap<string, SaturatingTarget>,
  goodputShare: number,
): SaturatingFigures => {
  const toPartner = partnerCalls(log);
  const partnerDelivered = toTarget(deliveredAt, targetOf, SaturatingTarget.PARTNER);
  const partner = deliveryLatency(
    toTarget(submittedAt, targetOf, SaturatingTarget.PARTNER),
    partnerDelivered,
  );
  const healthy = deliveryLatency(
    toTarget(submittedAt, targetOf, SaturatingTarget.HEALTHY),
    toTarget(deliveredAt, targetOf, SaturatingTarget.HEALTHY),
  );
  return {
    goodputShare,
    overloadsPerDelivered: perDelivered(
      toPartner.filter((c) => c.status === 503).length,
      partnerDelivered.size,
    ),
    attemptsPerDelivered: perDelivered(toPartner.length, partnerDelivered.size),
    partnerP50Ms: partner.p50Ms,
    partnerP99Ms: partner.p99Ms,
    healthyP50Ms: healthy.p50Ms,
    healthyP99Ms: healthy.p99Ms,
    delivered: deliveredAt.size,
    deadLettered: submittedAt.size - deliveredAt.size,
  };
};

export const runFigures = (run: SaturatingObservation, shape: SaturationShape): SaturatingFigures =>
  figuresOf(run.log, run.submittedAt, run.deliveredAt, run.targetOf, goodputShareOf(run, shape));

const merged = <V>(maps: readonly ReadonlyMap<string, V>[]): Map<string, V> =>
  new Map(maps.flatMap((map) => [...map]));

/**
 * Figures over all of a contender's rounds: counts and ratios over the pooled calls, latencies
 * over all events pooled, goodput the mean of the rounds' (each round has its own window).
 */
export const pooledFigures = (
  runs: readonly SaturatingObservation[],
  shape: SaturationShape,
): SaturatingFigures =>
  figuresOf(
    runs.flatMap((run) => run.log),
    merged(runs.map((run) => run.submittedAt)),
    merged(runs.map((run) => run.deliveredAt)),
    merged(runs.map((run) => run.targetOf)),
    mean3(runs.map((run) => goodputShareOf(run, shape))) ?? 0,
  );

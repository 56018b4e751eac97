import type { AwsClients, LocalAwsTarget } from "../../lib/adapters/aws-clients.js";
import type { RetryShape } from "../contender.js";
import {
  adaptiveContenders,
  type Comparison,
  type PartnerContender,
  runAdaptiveScenario,
  runPaced,
  type ScenarioRounds,
} from "../support/adaptive-contenders.js";
import {
  capacityPerSecond,
  SaturatingTarget,
  type SaturationShape,
  startSaturatingPartners,
} from "./partners.js";
import {
  pooledFigures,
  runFigures,
  type SaturatingFigures,
  type SaturatingObservation,
} from "./saturating-figures.js";

/**
 * A partner that slows as calls pile up and answers 503 past its capacity, beside a healthy
 * neighbour whose events share the queue and the function: does learning the partner's limit
 * spare it, and does it cost the neighbour anything. Scaled to run in minutes on two cores.
 */
export interface SaturatingSettings {
  /** Rounds of one run per contender; a multiple of the contenders' count keeps places balanced. */
  readonly rounds: number;
  readonly shape: SaturationShape;
  /** Events per run, sent at {@link submitRate}; every `healthyEvery`-th goes to the neighbour. */
  readonly events: number;
  readonly submitRate: number;
  readonly healthyEvery: number;
  readonly concurrency: number;
  readonly retry: Required<RetryShape>;
  readonly settleTimeoutMs: number;
}

export const DEFAULT_SATURATING_SETTINGS: Omit<SaturatingSettings, "rounds"> = {
  // 4 calls at once, 100 ms alone and 300 ms at 4: at most 13.3 answers a second.
  shape: { capacity: 4, baseLatencyMs: 100, latencyAtCapacity: 3, healthyLatencyMs: 20 },
  // 600 at 40/s take 15 s; every other one (20/s) goes to the partner, above the 13.3 it can
  // answer, so it has a backlog for the whole window and about 100 events left to drain after
  // it. The other 300 are the neighbour's: with the 94 of one in four, a round's p99 was its
  // slowest event, and one stray second decided the figure the A/A band is read from.
  events: 600,
  submitRate: 40,
  healthyEvery: 2,
  concurrency: 10,
  // As in the rate-limited scenario: no event should run out of attempts at the partner's pace.
  retry: {
    maxAttempts: 25,
    baseDelaySeconds: 1,
    multiplier: 2,
    maxDelaySeconds: 5,
    jitter: "none",
    timeoutMs: 3_000,
  },
  settleTimeoutMs: 90_000,
};

/** Static limits set right: the partner's capacity as its concurrency. */
const saturatingContenders = (capacity: number): readonly PartnerContender[] =>
  adaptiveContenders({ maxConcurrentCalls: capacity });

/** The figures compared subject ÷ contender round by round, and read against the A/A band. */
const RATIO_FIGURES = {
  healthyP99Ms: (f: SaturatingFigures) => f.healthyP99Ms,
  overloadsPerDelivered: (f: SaturatingFigures) => f.overloadsPerDelivered,
  goodputShare: (f: SaturatingFigures) => f.goodputShare,
} as const;
export type SaturatingVersus = Record<keyof typeof RATIO_FIGURES, number | null>;

export interface SaturatingResult
  extends Comparison<SaturatingFigures, keyof SaturatingVersus>,
    ScenarioRounds {
  readonly settings: SaturatingSettings & { readonly capacityPerSecond: number };
}

/** Which target each event of a run goes to: every `healthyEvery`-th to the neighbour. */
export const plannedTargets = (
  label: string,
  settings: Pick<SaturatingSettings, "events" | "healthyEvery">,
): { readonly eventId: string; readonly target: SaturatingTarget }[] =>
  Array.from({ length: settings.events }, (_, i) => ({
    eventId: `${label}-${i}`,
    target: i % settings.healthyEvery === 0 ? SaturatingTarget.HEALTHY : SaturatingTarget.PARTNER,
  }));

/** One contender's run against fresh partners, its window the stretch it was sent in. */
const runSaturatingOnce = async (
  rateContender: PartnerContender,
  label: string,
  settings: SaturatingSettings,
  local: LocalAwsTarget,
  plainClients: AwsClients,
): Promise<SaturatingObservation> => {
  const partners = await startSaturatingPartners(settings.shape);
  try {
    const planned = plannedTargets(label, settings);
    const urlOf = (target: SaturatingTarget) =>
      target === SaturatingTarget.PARTNER ? partners.partnerUrl : partners.healthyUrl;
    const run = await runPaced({
      contender: rateContender.make(partners.partnerUrl),
      receiver: partners,
      events: planned.map(({ eventId, target }) => ({ eventId, baseUrl: urlOf(target) })),
      delivered: () => partners.deliveredAt.size,
      local,
      plainClients,
      settings,
    });
    return {
      log: [...partners.log],
      submittedAt: run.submittedAt,
      deliveredAt: new Map(partners.deliveredAt),
      targetOf: new Map(planned.map(({ eventId, target }) => [eventId, target])),
      windowStartMs: run.startedAtMs,
      windowEndMs: run.sentAtMs,
      wallMs: run.wallMs,
      failedBatches: run.failedBatches,
    };
  } finally {
    await partners.stop();
  }
};

/**
 * Runs every contender against a saturating partner and its healthy neighbour on 127.0.0.1,
 * round after round, each round's order rotated one place from the one before.
 */
export const runSaturating = async (options: {
  readonly local: LocalAwsTarget;
  readonly settings?: Partial<SaturatingSettings>;
  readonly progress?: (line: string) => void;
}): Promise<SaturatingResult> => {
  const partial = { ...DEFAULT_SATURATING_SETTINGS, ...options.settings };
  const result = await runAdaptiveScenario({
    scenario: "saturating",
    local: options.local,
    contenders: saturatingContenders(partial.shape.capacity),
    settings: partial,
    progress: options.progress,
    runOnce: (contender, label, settings: SaturatingSettings, plainClients) =>
      runSaturatingOnce(contender, label, settings, options.local, plainClients),
    figuresOf: (run, settings) => runFigures(run, settings.shape),
    pooledOf: (runs, settings) => pooledFigures(runs, settings.shape),
    ratioFigures: RATIO_FIGURES,
  });
  const capacity = capacityPerSecond(result.settings.shape);
  return { ...result, settings: { ...result.settings, capacityPerSecond: capacity } };
};

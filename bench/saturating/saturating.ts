import { setTimeout as sleep } from "node:timers/promises";
import type { AwsClients, LocalAwsTarget } from "../../lib/adapters/aws-clients.js";
import { ENV } from "../../lib/contract/environment.js";
import type { Contender, RetryShape } from "../contender.js";
import { powertools } from "../contenders/powertools.js";
import { createRicochetContender, ricochet } from "../contenders/ricochet.js";
import { type ContenderSetup, clientsFor, liveMessages } from "../harness.js";
import { partnerKey, type RateContender } from "../rate-limited/rate-limited.js";
import { submitPaced } from "../support/paced-submit.js";
import {
  checkRounds,
  medianRatios,
  type RatioBand,
  ratioBands,
  runRotatedRounds,
} from "../support/paired-rounds.js";
import { prepareContender } from "../support/prepare-contender.js";
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
  // 375 at 25/s take 15 s; three in four (18.75/s) go to the partner, above the 13.3 it can
  // answer, so it has a backlog for the whole window and about 80 events left to drain after it.
  events: 375,
  submitRate: 25,
  healthyEvery: 4,
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

/** The contender the claims are about, and its A/A twin: the same code under two names. */
export const SATURATING_SUBJECT = "ricochetAdaptive";
export const SATURATING_TWINS: readonly (readonly [string, string])[] = [
  ["ricochetAdaptiveAA", SATURATING_SUBJECT],
];

const fixed = (contender: Contender): RateContender => ({
  name: contender.name,
  make: () => contender,
});

export const saturatingContenders = (capacity: number): readonly RateContender[] => {
  const adaptive = { [ENV.ADAPTIVE_LIMITS]: "on" };
  return [
    fixed(createRicochetContender(SATURATING_SUBJECT, adaptive)),
    fixed(createRicochetContender("ricochetAdaptiveAA", adaptive)),
    {
      name: "ricochetStatic",
      // Static limits set right: the partner's capacity as its concurrency.
      make: (baseUrl) =>
        createRicochetContender("ricochetStatic", {
          [ENV.TARGETS]: JSON.stringify({
            overrides: { [partnerKey(baseUrl)]: { maxConcurrentCalls: capacity } },
          }),
        }),
    },
    fixed(ricochet),
    fixed(powertools),
  ];
};

/** The figures compared subject ÷ contender round by round, and read against the A/A band. */
const RATIO_FIGURES = {
  healthyP99Ms: (f: SaturatingFigures) => f.healthyP99Ms,
  overloadsPerDelivered: (f: SaturatingFigures) => f.overloadsPerDelivered,
  goodputShare: (f: SaturatingFigures) => f.goodputShare,
} as const;
export type SaturatingVersus = Record<keyof typeof RATIO_FIGURES, number | null>;

export interface SaturatingContenderFigures {
  readonly setup: ContenderSetup;
  readonly pooled: SaturatingFigures;
  readonly perRound: readonly SaturatingFigures[];
  readonly failedBatches: number;
  readonly wallMs: number;
}

export interface SaturatingResult {
  readonly settings: SaturatingSettings & { readonly capacityPerSecond: number };
  readonly order: readonly { readonly run: string; readonly contenders: readonly string[] }[];
  readonly subject: string;
  readonly twins: readonly (readonly [string, string])[];
  readonly contenders: Record<string, SaturatingContenderFigures>;
  /** Median per-round ratio subject ÷ contender; the twins' entry is the run's noise. */
  readonly ratios: Record<string, SaturatingVersus>;
  /** Per figure, the lowest and highest per-round A/A ratio (twin ÷ subject). */
  readonly noiseBand: Record<keyof SaturatingVersus, RatioBand | null>;
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
export const runSaturatingOnce = async (
  rateContender: RateContender,
  label: string,
  settings: SaturatingSettings,
  local: LocalAwsTarget,
  plainClients: AwsClients,
): Promise<SaturatingObservation> => {
  const partners = await startSaturatingPartners(settings.shape);
  const contender = rateContender.make(partners.partnerUrl);
  const clients = clientsFor(local);
  try {
    const { prepared, failedBatches } = await prepareContender(contender, {
      clients,
      plainClients,
      receiver: partners,
      retry: settings.retry,
      concurrency: settings.concurrency,
    });
    const planned = plannedTargets(label, settings);
    const urlOf = (target: SaturatingTarget) =>
      target === SaturatingTarget.PARTNER ? partners.partnerUrl : partners.healthyUrl;
    prepared.start();
    const windowStartMs = Date.now();
    const submittedAt = await submitPaced(
      clients,
      prepared.queueUrl,
      planned.map(({ eventId, target }) => ({ eventId, baseUrl: urlOf(target) })),
      settings.submitRate,
      settings.retry,
    );
    const windowEndMs = Date.now();
    const until = windowEndMs + settings.settleTimeoutMs;
    while (partners.deliveredAt.size < planned.length && Date.now() < until) {
      if ((await liveMessages(plainClients, prepared.consumedQueueUrls)) === 0) break;
      await sleep(250);
    }
    await prepared.stop();
    return {
      log: [...partners.log],
      submittedAt,
      deliveredAt: new Map(partners.deliveredAt),
      targetOf: new Map(planned.map(({ eventId, target }) => [eventId, target])),
      windowStartMs,
      windowEndMs,
      wallMs: Date.now() - windowStartMs,
      failedBatches: failedBatches(),
    };
  } finally {
    await partners.stop();
    clients.destroy();
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
  const contenders = saturatingContenders(partial.shape.capacity);
  const settings: SaturatingSettings = {
    ...partial,
    rounds: options.settings?.rounds ?? contenders.length,
  };
  checkRounds("saturating", settings.rounds, contenders.length);
  const plainClients = clientsFor(options.local);
  try {
    const { order, runs } = await runRotatedRounds({
      contenders,
      rounds: settings.rounds,
      labelOf: (round) => `sat${round}`,
      runOnce: (contender, label) =>
        runSaturatingOnce(contender, label, settings, options.local, plainClients),
      describe: (contender, label, run) =>
        `saturating ${label} ${contender.name}: ${run.deliveredAt.size} of ${settings.events} delivered, ${run.log.length} calls in ${run.wallMs} ms`,
      progress: options.progress ?? (() => {}),
    });
    const figures: Record<string, SaturatingContenderFigures> = {};
    for (const contender of contenders) {
      const own = runs.get(contender.name) ?? [];
      figures[contender.name] = {
        setup: {
          concurrency: settings.concurrency,
          deployment: contender.make("http://127.0.0.1:1").deployment(settings.retry),
        },
        pooled: pooledFigures(own, settings.shape),
        perRound: own.map((run) => runFigures(run, settings.shape)),
        failedBatches: own.reduce((sum, run) => sum + run.failedBatches, 0),
        wallMs: Math.max(0, ...own.map((run) => run.wallMs)),
      };
    }
    const subjectRounds = figures[SATURATING_SUBJECT]?.perRound ?? [];
    const ratios: Record<string, SaturatingVersus> = {};
    for (const contender of contenders) {
      if (contender.name === SATURATING_SUBJECT) continue;
      const theirs = figures[contender.name]?.perRound ?? [];
      ratios[contender.name] = medianRatios(subjectRounds, theirs, RATIO_FIGURES);
    }
    const [twin, original] = SATURATING_TWINS[0] ?? ["", ""];
    return {
      settings: { ...settings, capacityPerSecond: capacityPerSecond(settings.shape) },
      order,
      subject: SATURATING_SUBJECT,
      twins: SATURATING_TWINS,
      contenders: figures,
      ratios,
      noiseBand: ratioBands(
        figures[twin]?.perRound ?? [],
        figures[original]?.perRound ?? [],
        RATIO_FIGURES,
      ),
    };
  } finally {
    plainClients.destroy();
  }
};

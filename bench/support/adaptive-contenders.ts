import { setTimeout as sleep } from "node:timers/promises";
import type { AwsClients, LocalAwsTarget } from "../../lib/adapters/aws-clients.js";
import { ENV } from "../../lib/contract/environment.js";
import type { TargetLimits } from "../../lib/core/target-settings.js";
import type { Contender, ContenderContext, PreparedContender, RetryShape } from "../contender.js";
import { powertools } from "../contenders/powertools.js";
import { createRicochetContender, ricochet } from "../contenders/ricochet.js";
import { type ContenderSetup, clientsFor, liveMessages } from "../harness.js";
import { type PlannedEvent, submitPaced } from "./paced-submit.js";
import {
  checkRounds,
  medianRatios,
  type RatioBand,
  type RotatedRuns,
  ratioBands,
  runRotatedRounds,
} from "./paired-rounds.js";
import { prepareContender } from "./prepare-contender.js";

/*
 * The contenders of the adaptive-limits scenarios (rate-limited and saturating partner, issue
 * #35), how a run of one settles, and how their rounds are compared: one of each, so that both
 * scenarios set up and judge their contenders alike.
 */

/** The contender the claims are about, and its A/A twin: the same code under two names. */
export const ADAPTIVE_SUBJECT = "ricochetAdaptive";
export const ADAPTIVE_TWINS: readonly (readonly [string, string])[] = [
  ["ricochetAdaptiveAA", ADAPTIVE_SUBJECT],
];

/** A contender that may need the partner's address (static limits are keyed by its origin). */
export interface PartnerContender {
  readonly name: string;
  make(baseUrl: string): Contender;
}

/** The key a loopback HTTP target's limits are declared under (lib/core/target-key.ts). */
export const partnerKey = (baseUrl: string): string => `http:${baseUrl}`;

const fixed = (contender: Contender): PartnerContender => ({
  name: contender.name,
  make: () => contender,
});

/**
 * Adaptive Ricochet and its twin, Ricochet with `staticLimits` declared for the partner (set
 * right for it), Ricochet with none, and Powertools.
 */
export const adaptiveContenders = (staticLimits: TargetLimits): readonly PartnerContender[] => {
  const adaptive = { [ENV.ADAPTIVE_LIMITS]: "on" };
  return [
    fixed(createRicochetContender(ADAPTIVE_SUBJECT, adaptive)),
    fixed(createRicochetContender("ricochetAdaptiveAA", adaptive)),
    {
      name: "ricochetStatic",
      make: (baseUrl) =>
        createRicochetContender("ricochetStatic", {
          [ENV.TARGETS]: JSON.stringify({ overrides: { [partnerKey(baseUrl)]: staticLimits } }),
        }),
    },
    fixed(ricochet),
    fixed(powertools),
  ];
};

/**
 * Waits until `delivered()` reaches `events`, the contender's queues are empty (what is left can
 * never be delivered: dead-lettered), or `timeoutMs` has passed; then stops the contender.
 */
const settleAndStop = async (
  plainClients: AwsClients,
  prepared: PreparedContender,
  delivered: () => number,
  events: number,
  timeoutMs: number,
): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (delivered() < events && Date.now() < until) {
    if ((await liveMessages(plainClients, prepared.consumedQueueUrls)) === 0) break;
    await sleep(250);
  }
  await prepared.stop();
};

/** How a run sends its events and how long it waits for them. */
export interface PacedSettings {
  readonly retry: RetryShape;
  readonly concurrency: number;
  readonly submitRate: number;
  readonly settleTimeoutMs: number;
}

/** What a paced run did, besides what its partner logged. */
export interface PacedRun {
  readonly submittedAt: Map<string, number>;
  /** When sending began and ended (ms since epoch): the stretch the partner has a backlog in. */
  readonly startedAtMs: number;
  readonly sentAtMs: number;
  readonly wallMs: number;
  readonly failedBatches: number;
}

/**
 * One contender's run: prepared as every scenario prepares it, started (then `onStart`), sent
 * `events` at the settings' pace, and stopped once they are delivered or can no longer be.
 */
export const runPaced = async (options: {
  readonly contender: Contender;
  readonly receiver: ContenderContext["receiver"];
  readonly events: readonly PlannedEvent[];
  readonly delivered: () => number;
  readonly local: LocalAwsTarget;
  readonly plainClients: AwsClients;
  readonly settings: PacedSettings;
  readonly onStart?: () => void;
}): Promise<PacedRun> => {
  const { settings, plainClients } = options;
  const clients = clientsFor(options.local);
  try {
    const { prepared, failedBatches } = await prepareContender(options.contender, {
      clients,
      plainClients,
      receiver: options.receiver,
      retry: settings.retry,
      concurrency: settings.concurrency,
    });
    const startedAtMs = Date.now();
    prepared.start();
    options.onStart?.();
    const submittedAt = await submitPaced(
      clients,
      prepared.queueUrl,
      options.events,
      settings.submitRate,
      settings.retry,
    );
    const sentAtMs = Date.now();
    await settleAndStop(
      plainClients,
      prepared,
      options.delivered,
      options.events.length,
      settings.settleTimeoutMs,
    );
    return {
      submittedAt,
      startedAtMs,
      sentAtMs,
      wallMs: Date.now() - startedAtMs,
      failedBatches: failedBatches(),
    };
  } finally {
    clients.destroy();
  }
};

/** What every observation of these scenarios carries besides its own figures. */
export interface RunCounts {
  readonly failedBatches: number;
  readonly wallMs: number;
}

/** One contender's figures over its rounds. */
interface ComparedContender<F> {
  readonly setup: ContenderSetup;
  readonly pooled: F;
  readonly perRound: readonly F[];
  readonly failedBatches: number;
  readonly wallMs: number;
}

/** Every contender's figures, the subject's median ratio to each, and the run's A/A band. */
export interface Comparison<F, K extends string> {
  readonly subject: string;
  readonly twins: readonly (readonly [string, string])[];
  readonly contenders: Record<string, ComparedContender<F>>;
  /** Median per-round ratio subject ÷ contender; the twins' entry is the run's noise. */
  readonly ratios: Record<string, Record<K, number | null>>;
  /** Per figure, the symmetric A/A band of twin ÷ subject. */
  readonly noiseBand: Record<K, RatioBand | null>;
}

/** Figures for each contender's rounds, and the comparisons the claims are read from. */
export const compareContenders = <O extends RunCounts, F, K extends string>(options: {
  readonly contenders: readonly PartnerContender[];
  readonly runs: ReadonlyMap<string, readonly O[]>;
  readonly concurrency: number;
  readonly retry: RetryShape;
  readonly figuresOf: (run: O) => F;
  readonly pooledOf: (runs: readonly O[]) => F;
  readonly ratioFigures: Readonly<Record<K, (f: F) => number | null>>;
}): Comparison<F, K> => {
  const contenders: Record<string, ComparedContender<F>> = {};
  for (const contender of options.contenders) {
    const own = options.runs.get(contender.name) ?? [];
    contenders[contender.name] = {
      setup: {
        concurrency: options.concurrency,
        deployment: contender.make("http://127.0.0.1:1").deployment(options.retry),
      },
      pooled: options.pooledOf(own),
      perRound: own.map(options.figuresOf),
      failedBatches: own.reduce((sum, run) => sum + run.failedBatches, 0),
      wallMs: Math.max(0, ...own.map((run) => run.wallMs)),
    };
  }
  const subjectRounds = contenders[ADAPTIVE_SUBJECT]?.perRound ?? [];
  const ratios: Record<string, Record<K, number | null>> = {};
  for (const { name } of options.contenders) {
    if (name === ADAPTIVE_SUBJECT) continue;
    const theirs = contenders[name]?.perRound ?? [];
    ratios[name] = medianRatios(subjectRounds, theirs, options.ratioFigures);
  }
  const [twin, original] = ADAPTIVE_TWINS[0] ?? ["", ""];
  return {
    subject: ADAPTIVE_SUBJECT,
    twins: ADAPTIVE_TWINS,
    contenders,
    ratios,
    noiseBand: ratioBands(
      contenders[twin]?.perRound ?? [],
      contenders[original]?.perRound ?? [],
      options.ratioFigures,
    ),
  };
};

/** The order a scenario's runs were made in, and the warm-up before them. */
export type ScenarioRounds = Pick<RotatedRuns<unknown>, "warmUp" | "order">;

/** What a run records that its progress line reports. */
export interface ObservedRun extends RunCounts {
  readonly deliveredAt: ReadonlyMap<string, number>;
  readonly log: readonly unknown[];
}

/**
 * A scenario's rounds, rotated, each contender against a fresh partner (`runOnce`), and their
 * comparison: the same for every scenario of these contenders. `settings.rounds` unset is one
 * round per contender, so each takes every place once.
 */
export const runAdaptiveScenario = async <
  S extends PacedSettings & { readonly rounds: number; readonly events: number },
  O extends ObservedRun,
  F,
  K extends string,
>(options: {
  /** The scenario's name, as `--scenario` spells it: also its progress lines' prefix. */
  readonly scenario: string;
  readonly local: LocalAwsTarget;
  readonly contenders: readonly PartnerContender[];
  readonly settings: Omit<S, "rounds"> & { readonly rounds?: number | undefined };
  readonly progress?: ((line: string) => void) | undefined;
  readonly runOnce: (
    contender: PartnerContender,
    label: string,
    settings: S,
    plainClients: AwsClients,
  ) => Promise<O>;
  readonly figuresOf: (run: O, settings: S) => F;
  readonly pooledOf: (runs: readonly O[], settings: S) => F;
  readonly ratioFigures: Readonly<Record<K, (f: F) => number | null>>;
}): Promise<{ readonly settings: S } & ScenarioRounds & Comparison<F, K>> => {
  const { contenders, scenario } = options;
  const settings = {
    ...options.settings,
    rounds: options.settings.rounds ?? contenders.length,
  } as S;
  checkRounds(scenario, settings.rounds, contenders.length);
  const plainClients = clientsFor(options.local);
  try {
    const { warmUp, order, runs } = await runRotatedRounds({
      contenders,
      rounds: settings.rounds,
      labelOf: (round) => `${scenario}${round}`,
      warmUpLabel: `${scenario}-warm-up`,
      runOnce: (contender, label) => options.runOnce(contender, label, settings, plainClients),
      describe: (contender, label, run) =>
        `${scenario} ${label} ${contender.name}: ${run.deliveredAt.size} of ${settings.events} delivered, ${run.log.length} calls in ${run.wallMs} ms`,
      progress: options.progress ?? (() => {}),
    });
    return {
      settings,
      ...(warmUp === undefined ? {} : { warmUp }),
      order,
      ...compareContenders({
        contenders,
        runs,
        concurrency: settings.concurrency,
        retry: settings.retry,
        figuresOf: (run) => options.figuresOf(run, settings),
        pooledOf: (own) => options.pooledOf(own, settings),
        ratioFigures: options.ratioFigures,
      }),
    };
  } finally {
    plainClients.destroy();
  }
};

import { setTimeout as sleep } from "node:timers/promises";
import type { AwsClients, LocalAwsTarget } from "../../lib/adapters/aws-clients.js";
import { ENV } from "../../lib/contract/environment.js";
import type { BreakerSettings } from "../../lib/core/circuit-breaker.js";
import type { Contender, RetryShape } from "../contender.js";
import { powertools } from "../contenders/powertools.js";
import { createPowertoolsBreakerContender } from "../contenders/powertools-breaker.js";
import { createRicochetContender, ricochet } from "../contenders/ricochet.js";
import { type ContenderSetup, clientsFor, contendersInRound, liveMessages } from "../harness.js";
import { assertDeployable } from "../support/deployment.js";
import { submitPaced } from "../support/paced-submit.js";
import { prepareContender } from "../support/prepare-contender.js";
import { createRequestCounter } from "../support/request-counter.js";
import {
  compareScenario,
  type DownFigures,
  downFigures,
  type HealthyFigures,
  healthyFigures,
  type NoisyObservation,
  type RoundFigure,
  type ScenarioComparison,
  type SubmittedEvent,
} from "./noisy-report.js";
import { type Outage, startNoisyTargets, TargetKind } from "./noisy-targets.js";

/**
 * The noisy-neighbour scenario, scaled down to run in minutes: every timing of a real outage
 * (an hour down, 10 s timeouts, a breaker open for 30 s) divided so that the outage still ends
 * inside the retry window, and the breaker's settings divided alike.
 */
export interface NoisyNeighbourSettings {
  /**
   * Rounds of the three runs (all healthy, outage, recovery mid-run) per contender; figures pool
   * the rounds. A multiple of {@link balancedRounds}, so that over all runs each contender goes
   * first (and takes every other place) equally often; unset, that many. One round of the six
   * contenders takes about six minutes.
   */
  readonly rounds: number;
  /** Events per run, sent at {@link submitRate}; event i goes to target i mod 10. */
  readonly events: number;
  readonly submitRate: number;
  /** Unmeasured all-healthy events per contender before the first measured run; 0 for none. */
  readonly warmupEvents: number;
  /** Their rate: faster than the measured runs', since only their number warms DynamoDB Local. */
  readonly warmupRate: number;
  /** Invocations at once, the same for every contender (see `BenchOptions.concurrency`). */
  readonly concurrency: number;
  /** How long the slow target takes to answer. */
  readonly slowMs: number;
  /** Every contender's retries; `timeoutMs` bounds each call, so each hanging call. */
  readonly retry: Required<RetryShape>;
  /** The down target's outage in each scenario, from the first event sent. */
  readonly outages: {
    /** Down while the events are sent; recovers after the last. */
    readonly outage: Outage;
    /** Recovers while the events are still being sent. */
    readonly recoveryMidRun: Outage;
  };
  /** The breakers of the `ricochetBreakers` contender, and their opossum equivalent. */
  readonly breaker: BreakerSettings;
  /** How long after the last send a run may take to deliver or dead-letter everything. */
  readonly settleTimeoutMs: number;
}

export const DEFAULT_NOISY_SETTINGS: Omit<NoisyNeighbourSettings, "rounds"> = {
  events: 300,
  submitRate: 20,
  // After 100 warm-up events at 20/s the first contender's all-healthy p50 was 19 ms against the
  // others' 11–13 ms: DynamoDB Local's JVM was still compiling.
  warmupEvents: 300,
  warmupRate: 60,
  // Lambda scales an SQS mapping's concurrency out; two pollers would be saturated by the slow
  // target alone (2 events/s × 2 s), and the scenario would measure that instead.
  concurrency: 10,
  slowMs: 2_000,
  // The window (9 × 5 s plus the calls) outlasts both outages, so no event needs a redrive; the
  // timeout is above the slow target's 2 s. Every contender waits 5 s after a failed call.
  retry: {
    maxAttempts: 10,
    baseDelaySeconds: 5,
    multiplier: 2,
    maxDelaySeconds: 5,
    jitter: "none",
    timeoutMs: 3_000,
  },
  outages: {
    outage: { refusedMs: 6_000, hangingMs: 11_000 },
    recoveryMidRun: { refusedMs: 3_000, hangingMs: 4_000 },
  },
  // The defaults divided by about ten: a 10 s window, open 2 s doubling up to 8 s (so the
  // breaker closes within 8 s of the recovery), a probe wait of 1 s, a lost probe after 10 s (over
  // the 3 s call timeout), five calls before the rate counts. The release rate stays at its
  // default of 10 per second, and the 3 s timeout is above the default floor for counting one.
  breaker: {
    failureRateThreshold: 0.5,
    minimumCalls: 5,
    windowMs: 10_000,
    openMs: 2_000,
    maxOpenMs: 8_000,
    halfOpenProbes: 1,
    probeWaitMs: 1_000,
    probeTimeoutMs: 10_000,
    releasePerSecond: 10,
    minCountedTimeoutMs: 1_000,
  },
  settleTimeoutMs: 90_000,
};

/** The ten targets of the scenario: one down, one slow, eight healthy. */
export const NOISY_KINDS: readonly TargetKind[] = [
  TargetKind.DOWN,
  TargetKind.SLOW,
  ...Array.from({ length: 8 }, () => TargetKind.HEALTHY),
];

const ALL_HEALTHY: readonly TargetKind[] = NOISY_KINDS.map(() => TargetKind.HEALTHY);

/** The contender the scenario's targets are about: Ricochet with its breakers on. */
export const NOISY_SUBJECT = "ricochetBreakers";

/**
 * The A/A pairs, [twin, original]: the same code under two names, whose ratios are this run's
 * noise. `ricochetBreakersAA` because every claim is about the subject, whose breaker state
 * (shared, timed) makes its figures the likeliest to move from run to run; `powertoolsBreakerAA`
 * because the comparison that matters most is with the other breaker, and a difference must
 * stand out from both sides' noise (verdicts use the wider band). Two twins also make six
 * contenders, which the three runs of a round rotate through evenly in two rounds.
 */
export const NOISY_TWINS: readonly (readonly [string, string])[] = [
  ["ricochetBreakersAA", NOISY_SUBJECT],
  ["powertoolsBreakerAA", "powertoolsBreaker"],
];

/**
 * Ricochet with breakers on (and its twin), off, Powertools with a breaker per target (opossum,
 * the same settings; and its twin), and Powertools as it comes.
 */
export const noisyContenders = (breaker: BreakerSettings): readonly Contender[] => {
  const env = { [ENV.CIRCUIT_BREAKER]: JSON.stringify(breaker) };
  return [
    createRicochetContender(NOISY_SUBJECT, env),
    createRicochetContender("ricochetBreakersAA", env),
    ricochet,
    createPowertoolsBreakerContender("powertoolsBreaker", breaker),
    createPowertoolsBreakerContender("powertoolsBreakerAA", breaker),
    powertools,
  ];
};

/** The runs of one round: all healthy, outage, recovery mid-run. */
const RUNS_PER_ROUND = 3;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * The fewest rounds in which each of `contenders` contenders takes every place equally often:
 * the runs are rotated one place each, so their count must be a multiple of the contenders'.
 */
export const balancedRounds = (contenders: number): number =>
  contenders / gcd(contenders, RUNS_PER_ROUND);

/** Refuses a round count that would let one contender run first more often than another. */
export const checkNoisyRounds = (rounds: number, contenders: readonly Contender[]): void => {
  const unit = balancedRounds(contenders.length);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds % unit !== 0) {
    throw new Error(
      `noisy-neighbour rounds must be a multiple of ${unit}, so that each of the ${contenders.length} contenders (${contenders.map((c) => c.name).join(", ")}) takes every place equally often over the rounds' ${RUNS_PER_ROUND} runs; got ${rounds}`,
    );
  }
};

/**
 * The order of the run in place `slot` (0-based over all measured runs, round by round): each
 * run rotated one place from the run before it, as the retries scenario rotates its rounds.
 */
export const noisyOrder = (slot: number, contenders: readonly Contender[]): readonly Contender[] =>
  contendersInRound(slot + 1, contenders);

/** One scenario's figures for one contender. */
export interface ScenarioFigures {
  /** Absolute, over all rounds' events pooled. */
  readonly healthy: HealthyFigures;
  /** Round by round: what the comparisons with the other contenders pair. */
  readonly perRound: readonly RoundFigure[];
  readonly slowDelivered: number;
  readonly down: DownFigures | null;
  readonly awsRequestsPerEvent: number;
  readonly failedBatches: number;
  /** From the first send to the end of the run: the longest round. */
  readonly wallMs: number;
}

export interface NoisyContenderFigures {
  /** What it was given: the same concurrency for every contender, and its deployment. */
  readonly setup: ContenderSetup;
  readonly allHealthy: HealthyFigures & {
    readonly awsRequestsPerEvent: number;
    readonly failedBatches: number;
  };
  readonly outage: ScenarioFigures;
  readonly recoveryMidRun: ScenarioFigures;
}

export interface NoisyNeighbourResult {
  readonly settings: NoisyNeighbourSettings & { readonly targets: readonly TargetKind[] };
  /** Each measured run's label and contender order, as run. */
  readonly order: readonly { readonly run: string; readonly contenders: readonly string[] }[];
  /** The contender the claims are about ({@link NOISY_SUBJECT}). */
  readonly subject: string;
  readonly contenders: Record<string, NoisyContenderFigures>;
  /**
   * The subject against every other contender in the same run, per scenario: absolute figures,
   * per-round ratios read against the A/A band, and the scenario's targets.
   */
  readonly comparison: {
    readonly outage: ScenarioComparison;
    readonly recoveryMidRun: ScenarioComparison;
  };
}

/** One run: what its targets do, and whether the down one has an outage. */
interface NoisyRun {
  /** Prefix of the run's event ids. */
  readonly label: string;
  /** How each target behaves in this run; event i goes to target i mod their number. */
  readonly kinds: readonly TargetKind[];
  readonly outage?: Outage;
}

interface RunFigures {
  readonly observation: NoisyObservation;
  readonly awsRequests: number;
  readonly failedBatches: number;
  readonly wallMs: number;
}

/**
 * One contender's run. Events are reported under the role their target has in the noisy runs
 * ({@link NOISY_KINDS}), whatever it does in this one: the all-healthy run's "healthy" figures
 * cover the same 80% of events as the noisy runs', so their ratios compare like with like.
 */
const runNoisyOnce = async (
  contender: Contender,
  run: NoisyRun,
  events: number,
  settings: NoisyNeighbourSettings,
  local: LocalAwsTarget,
  plainClients: AwsClients,
): Promise<RunFigures> => {
  const counter = createRequestCounter();
  const clients = clientsFor(local, counter);
  const targets = await startNoisyTargets({
    kinds: run.kinds,
    slowMs: settings.slowMs,
    ...(run.outage === undefined ? {} : { outage: run.outage }),
  });
  try {
    const { prepared, failedBatches } = await prepareContender(contender, {
      clients,
      plainClients,
      receiver: targets,
      retry: settings.retry,
      concurrency: settings.concurrency,
    });
    const plan = Array.from({ length: events }, (_, i) => {
      const target = targets.targets[i % targets.targets.length];
      if (target === undefined) throw new Error("no targets");
      const role = NOISY_KINDS[i % NOISY_KINDS.length] ?? target.kind;
      return { eventId: `${run.label}-${i}`, baseUrl: target.baseUrl, kind: role };
    });
    counter.reset();
    const startedAt = Date.now();
    prepared.start();
    targets.startOutage();
    const submittedAt = await submitPaced(
      clients,
      prepared.queueUrl,
      plan,
      settings.submitRate,
      settings.retry,
    );
    const submitted: SubmittedEvent[] = plan.map((event) => ({
      eventId: event.eventId,
      kind: event.kind,
      submittedAt: submittedAt.get(event.eventId) ?? startedAt,
    }));
    const outageOver = () => run.outage === undefined || targets.recoveredAt() !== undefined;
    const until = Date.now() + settings.settleTimeoutMs;
    // Done when every event is delivered, or when the outage is over and nothing is left to try
    // (the rest were dead-lettered): the consumed queues hold no message in any state.
    while (targets.deliveredAt.size < events && Date.now() < until) {
      if (outageOver() && (await liveMessages(plainClients, prepared.consumedQueueUrls)) === 0) {
        break;
      }
      await sleep(250);
    }
    const failure = targets.failure();
    if (failure !== undefined) throw failure;
    await prepared.stop();
    const wallMs = Date.now() - startedAt;
    const downIds = submitted.filter((e) => e.kind === TargetKind.DOWN).map((e) => e.eventId);
    const extra = downIds.length === 0 ? {} : ((await prepared.extraFigures?.(downIds)) ?? {});
    const outageStartedAt = targets.outageStartedAt();
    const recoveredAt = targets.recoveredAt();
    return {
      observation: {
        events: submitted,
        deliveredAt: targets.deliveredAt,
        calls: targets.calls,
        callsWhileDown: targets.callsWhileDown,
        outage:
          run.outage === undefined || outageStartedAt === undefined || recoveredAt === undefined
            ? undefined
            : { startedAt: outageStartedAt, recoveredAt },
        attemptsCharged: typeof extra.attemptsCharged === "number" ? extra.attemptsCharged : null,
      },
      awsRequests: Object.values(counter.snapshot()).reduce((sum, n) => sum + n, 0),
      failedBatches: failedBatches(),
      wallMs,
    };
  } finally {
    await targets.stop();
    clients.destroy();
  }
};

const perEvent = (total: number, events: number): number =>
  Math.round((total / Math.max(1, events)) * 1000) / 1000;

const observations = (runs: readonly RunFigures[]) => runs.map((run) => run.observation);
const sumOf = (runs: readonly RunFigures[], pick: (run: RunFigures) => number): number =>
  runs.reduce((total, run) => total + pick(run), 0);
const eventsIn = (runs: readonly RunFigures[]): number =>
  sumOf(runs, (run) => run.observation.events.length);

const roundFigure = (run: RunFigures): RoundFigure => ({
  healthyP99Ms: healthyFigures([run.observation]).p99Ms,
  downCallsPerMinute: downFigures([run.observation])?.callsPerMinuteWhileDown ?? null,
});

const scenarioFigures = (runs: readonly RunFigures[]): ScenarioFigures => {
  return {
    healthy: healthyFigures(observations(runs)),
    perRound: runs.map(roundFigure),
    slowDelivered: sumOf(
      runs,
      (run) =>
        run.observation.events.filter(
          (e) => e.kind === TargetKind.SLOW && run.observation.deliveredAt.has(e.eventId),
        ).length,
    ),
    down: downFigures(observations(runs)),
    awsRequestsPerEvent: perEvent(
      sumOf(runs, (run) => run.awsRequests),
      eventsIn(runs),
    ),
    failedBatches: sumOf(runs, (run) => run.failedBatches),
    wallMs: Math.max(...runs.map((run) => run.wallMs)),
  };
};

const comparisonOf = (
  contenders: readonly Contender[],
  figures: Record<string, NoisyContenderFigures>,
  scenario: "outage" | "recoveryMidRun",
): ScenarioComparison => {
  const of = (name: string) => figures[name]?.[scenario];
  return compareScenario({
    subject: NOISY_SUBJECT,
    twins: NOISY_TWINS,
    perRound: Object.fromEntries(contenders.map((c) => [c.name, of(c.name)?.perRound ?? []])),
    pooled: Object.fromEntries(
      contenders.map((c) => [
        c.name,
        {
          healthyP99Ms: of(c.name)?.healthy.p99Ms ?? null,
          downCallsPerMinute: of(c.name)?.down?.callsPerMinuteWhileDown ?? null,
        },
      ]),
    ),
  });
};

/**
 * Runs every contender against ten targets on 127.0.0.1: all healthy, then with one down and one
 * slow while the events are sent, then with the down one recovering mid-run; round after round,
 * each run with each contender in turn, every run rotated one place from the one before.
 */
export const runNoisyNeighbour = async (options: {
  readonly local: LocalAwsTarget;
  readonly settings?: Partial<NoisyNeighbourSettings>;
  readonly progress?: (line: string) => void;
}): Promise<NoisyNeighbourResult> => {
  const partial = { ...DEFAULT_NOISY_SETTINGS, ...options.settings };
  const contenders = noisyContenders(partial.breaker);
  const settings: NoisyNeighbourSettings = {
    ...partial,
    rounds: options.settings?.rounds ?? balancedRounds(contenders.length),
  };
  checkNoisyRounds(settings.rounds, contenders);
  for (const contender of contenders) {
    assertDeployable(contender.name, contender.deployment(settings.retry));
  }
  const progress = options.progress ?? (() => {});
  const plainClients = clientsFor(options.local);
  try {
    const order: { run: string; contenders: string[] }[] = [];
    /** Runs `run` with each contender of `inOrder`, one after the other. */
    const runAll = async (
      run: NoisyRun,
      inOrder: readonly Contender[],
      events = settings.events,
      submitRate = settings.submitRate,
    ): Promise<Map<string, RunFigures>> => {
      const figures = new Map<string, RunFigures>();
      for (const contender of inOrder) {
        const result = await runNoisyOnce(
          contender,
          run,
          events,
          { ...settings, submitRate },
          options.local,
          plainClients,
        );
        figures.set(contender.name, result);
        progress(
          `noisy-neighbour ${run.label} ${contender.name}: ${result.observation.deliveredAt.size} of ${events} delivered in ${result.wallMs} ms`,
        );
      }
      return figures;
    };
    if (settings.warmupEvents > 0) {
      await runAll(
        { label: "warmup", kinds: ALL_HEALTHY },
        contenders,
        settings.warmupEvents,
        settings.warmupRate,
      );
    }
    const runs = {
      healthy: new Map<string, RunFigures[]>(),
      outage: new Map<string, RunFigures[]>(),
      recovery: new Map<string, RunFigures[]>(),
    };
    let slot = 0;
    const measure = async (into: Map<string, RunFigures[]>, run: NoisyRun) => {
      const inOrder = noisyOrder(slot, contenders);
      slot += 1;
      order.push({ run: run.label, contenders: inOrder.map((c) => c.name) });
      for (const [name, figures] of await runAll(run, inOrder)) {
        into.set(name, [...(into.get(name) ?? []), figures]);
      }
    };
    for (let round = 0; round < settings.rounds; round += 1) {
      await measure(runs.healthy, { label: `healthy${round}`, kinds: ALL_HEALTHY });
      await measure(runs.outage, {
        label: `outage${round}`,
        kinds: NOISY_KINDS,
        outage: settings.outages.outage,
      });
      await measure(runs.recovery, {
        label: `recovery${round}`,
        kinds: NOISY_KINDS,
        outage: settings.outages.recoveryMidRun,
      });
    }
    const figures: Record<string, NoisyContenderFigures> = {};
    for (const contender of contenders) {
      const healthyRuns = runs.healthy.get(contender.name) ?? [];
      figures[contender.name] = {
        setup: {
          concurrency: settings.concurrency,
          deployment: contender.deployment(settings.retry),
        },
        allHealthy: {
          ...healthyFigures(observations(healthyRuns)),
          awsRequestsPerEvent: perEvent(
            sumOf(healthyRuns, (run) => run.awsRequests),
            eventsIn(healthyRuns),
          ),
          failedBatches: sumOf(healthyRuns, (run) => run.failedBatches),
        },
        outage: scenarioFigures(runs.outage.get(contender.name) ?? []),
        recoveryMidRun: scenarioFigures(runs.recovery.get(contender.name) ?? []),
      };
    }
    return {
      settings: { ...settings, targets: NOISY_KINDS },
      order,
      subject: NOISY_SUBJECT,
      contenders: figures,
      comparison: {
        outage: comparisonOf(contenders, figures, "outage"),
        recoveryMidRun: comparisonOf(contenders, figures, "recoveryMidRun"),
      },
    };
  } finally {
    plainClients.destroy();
  }
};

import { setTimeout as sleep } from "node:timers/promises";
import { SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import type { AwsClients, LocalAwsTarget } from "../../lib/adapters/aws-clients.js";
import { ENV } from "../../lib/contract/environment.js";
import type { BreakerSettings } from "../../lib/core/circuit-breaker.js";
import { createFunctionConcurrency } from "../../lib/local/function-concurrency.js";
import { benchEnvelope, type Contender, type RetryShape } from "../contender.js";
import { powertools } from "../contenders/powertools.js";
import { createRicochetContender, ricochet } from "../contenders/ricochet.js";
import { clientsFor, liveMessages } from "../harness.js";
import { assertDeployable } from "../support/deployment.js";
import { createRequestCounter } from "../support/request-counter.js";
import {
  type DownFigures,
  downFigures,
  type HealthyFigures,
  healthyFigures,
  type NoisyObservation,
  type SubmittedEvent,
  type VersusAllHealthy,
  versusAllHealthy,
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
   * the rounds. One round takes about three minutes.
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
  /** The breakers of the `ricochetBreakers` contender. */
  readonly breaker: BreakerSettings;
  /** How long after the last send a run may take to deliver or dead-letter everything. */
  readonly settleTimeoutMs: number;
}

/** Healthy-target p99 with breakers on, as a multiple of the all-healthy p99, that #15 allows. */
export const P99_LIMIT = 1.5;

export const DEFAULT_NOISY_SETTINGS: NoisyNeighbourSettings = {
  rounds: 1,
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

/** The same Ricochet with breakers on, and the contenders it is compared with. */
export const noisyContenders = (breaker: BreakerSettings): readonly Contender[] => [
  createRicochetContender("ricochetBreakers", {
    [ENV.CIRCUIT_BREAKER]: JSON.stringify(breaker),
  }),
  ricochet,
  powertools,
];

/** One scenario's figures for one contender. */
export interface ScenarioFigures {
  readonly healthy: HealthyFigures;
  /** Over all rounds' events pooled, against the all-healthy rounds' pooled. */
  readonly vsAllHealthy: VersusAllHealthy;
  readonly p99RatioPerRound: readonly (number | null)[];
  readonly slowDelivered: number;
  readonly down: DownFigures | null;
  readonly awsRequestsPerEvent: number;
  readonly failedBatches: number;
  /** From the first send to the end of the run: the longest round. */
  readonly wallMs: number;
}

export interface NoisyContenderFigures {
  readonly allHealthy: HealthyFigures & {
    readonly awsRequestsPerEvent: number;
    readonly failedBatches: number;
  };
  readonly outage: ScenarioFigures;
  readonly recoveryMidRun: ScenarioFigures;
}

export interface NoisyNeighbourResult {
  readonly settings: NoisyNeighbourSettings & { readonly targets: readonly TargetKind[] };
  readonly contenders: Record<string, NoisyContenderFigures>;
  /** #15's bound: breakers-on healthy p99 ≤ {@link P99_LIMIT} × its all-healthy p99, per scenario. */
  readonly breakersWithinP99Limit: {
    readonly limit: number;
    readonly outage: boolean | null;
    readonly recoveryMidRun: boolean | null;
  };
}

/** One run: what its targets do, and whether the down one has an outage. */
export interface NoisyRun {
  /** Prefix of the run's event ids. */
  readonly label: string;
  /** How each target behaves in this run; event i goes to target i mod their number. */
  readonly kinds: readonly TargetKind[];
  readonly outage?: Outage;
}

export interface RunFigures {
  readonly observation: NoisyObservation;
  readonly awsRequests: number;
  readonly failedBatches: number;
  readonly wallMs: number;
}

const SEND_TICK_MS = 50;

/** Sends `ids` at `rate` per second, in batches of at most 10 per tick, noting each send time. */
const submit = async (
  clients: AwsClients,
  queueUrl: string,
  ids: readonly { readonly eventId: string; readonly baseUrl: string; readonly kind: TargetKind }[],
  rate: number,
  retry: RetryShape,
): Promise<SubmittedEvent[]> => {
  const submitted: SubmittedEvent[] = [];
  const startedAt = Date.now();
  while (submitted.length < ids.length) {
    const due = Math.min(ids.length, Math.floor(((Date.now() - startedAt) / 1000) * rate) + 1);
    for (let start = submitted.length; start < due; start += 10) {
      const chunk = ids.slice(start, Math.min(due, start + 10));
      const submittedAt = Date.now();
      await clients.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((event, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify(
              benchEnvelope(event.baseUrl, event.eventId, start + i, retry),
            ),
          })),
        }),
      );
      for (const event of chunk) {
        submitted.push({ eventId: event.eventId, kind: event.kind, submittedAt });
      }
    }
    if (submitted.length < ids.length) await sleep(SEND_TICK_MS);
  }
  return submitted;
};

/**
 * One contender's run. Events are reported under the role their target has in the noisy runs
 * ({@link NOISY_KINDS}), whatever it does in this one: the all-healthy run's "healthy" figures
 * cover the same 80% of events as the noisy runs', so their ratios compare like with like.
 */
export const runNoisyOnce = async (
  contender: Contender,
  run: NoisyRun,
  events: number,
  settings: NoisyNeighbourSettings,
  local: LocalAwsTarget,
  plainClients: AwsClients,
): Promise<RunFigures> => {
  const deployment = contender.deployment(settings.retry);
  assertDeployable(contender.name, deployment);
  const counter = createRequestCounter();
  const clients = clientsFor(local, counter);
  const targets = await startNoisyTargets({
    kinds: run.kinds,
    slowMs: settings.slowMs,
    ...(run.outage === undefined ? {} : { outage: run.outage }),
  });
  let failedBatches = 0;
  try {
    const prepared = await contender.prepare({
      clients,
      plainClients,
      receiver: targets,
      retry: settings.retry,
      deployment,
      concurrency: createFunctionConcurrency(settings.concurrency),
      pollerLogger: {
        error: () => {
          failedBatches += 1;
        },
      },
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
    const submitted = await submit(
      clients,
      prepared.queueUrl,
      plan,
      settings.submitRate,
      settings.retry,
    );
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
      failedBatches,
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

const scenarioFigures = (
  runs: readonly RunFigures[],
  allHealthyRuns: readonly RunFigures[],
): ScenarioFigures => {
  const healthy = healthyFigures(observations(runs));
  return {
    healthy,
    vsAllHealthy: versusAllHealthy(healthy, healthyFigures(observations(allHealthyRuns))),
    // Round r against round r's all-healthy run: how far one round's ratio strays from the pool's.
    p99RatioPerRound: runs.map((run, i) => {
      const baseline = allHealthyRuns[i];
      return baseline === undefined
        ? null
        : versusAllHealthy(
            healthyFigures([run.observation]),
            healthyFigures([baseline.observation]),
          ).p99;
    }),
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

const within = (ratio: number | null | undefined): boolean | null =>
  ratio === null || ratio === undefined ? null : ratio <= P99_LIMIT;

/**
 * Runs every contender against ten targets on 127.0.0.1: first all healthy (the baseline of the
 * ratios), then with one down and one slow while the events are sent, then with the down one
 * recovering mid-run; round after round, each run with each contender in turn.
 */
export const runNoisyNeighbour = async (options: {
  readonly local: LocalAwsTarget;
  readonly settings?: Partial<NoisyNeighbourSettings>;
  readonly progress?: (line: string) => void;
}): Promise<NoisyNeighbourResult> => {
  const settings = { ...DEFAULT_NOISY_SETTINGS, ...options.settings };
  const progress = options.progress ?? (() => {});
  const contenders = noisyContenders(settings.breaker);
  const plainClients = clientsFor(options.local);
  try {
    /** Runs `run` with each contender, the order rotated by `shift` so none always goes first. */
    const runAll = async (
      run: NoisyRun,
      shift: number,
      events = settings.events,
      submitRate = settings.submitRate,
    ): Promise<Map<string, RunFigures>> => {
      const figures = new Map<string, RunFigures>();
      const order = contenders.map((_, i, all) => all[(i + shift) % all.length] as Contender);
      for (const contender of order) {
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
        0,
        settings.warmupEvents,
        settings.warmupRate,
      );
    }
    const runs = {
      healthy: new Map<string, RunFigures[]>(),
      outage: new Map<string, RunFigures[]>(),
      recovery: new Map<string, RunFigures[]>(),
    };
    const keep = (into: Map<string, RunFigures[]>, round: Map<string, RunFigures>) => {
      for (const [name, figures] of round) into.set(name, [...(into.get(name) ?? []), figures]);
    };
    for (let round = 0; round < settings.rounds; round += 1) {
      // Each run starts with another contender than the run before it and than the same run
      // in the round before, so none is always first.
      const shift = round;
      keep(runs.healthy, await runAll({ label: `healthy${round}`, kinds: ALL_HEALTHY }, shift));
      keep(
        runs.outage,
        await runAll(
          { label: `outage${round}`, kinds: NOISY_KINDS, outage: settings.outages.outage },
          shift + 1,
        ),
      );
      keep(
        runs.recovery,
        await runAll(
          {
            label: `recovery${round}`,
            kinds: NOISY_KINDS,
            outage: settings.outages.recoveryMidRun,
          },
          shift + 2,
        ),
      );
    }
    const figures: Record<string, NoisyContenderFigures> = {};
    for (const contender of contenders) {
      const healthyRuns = runs.healthy.get(contender.name) ?? [];
      figures[contender.name] = {
        allHealthy: {
          ...healthyFigures(observations(healthyRuns)),
          awsRequestsPerEvent: perEvent(
            sumOf(healthyRuns, (run) => run.awsRequests),
            eventsIn(healthyRuns),
          ),
          failedBatches: sumOf(healthyRuns, (run) => run.failedBatches),
        },
        outage: scenarioFigures(runs.outage.get(contender.name) ?? [], healthyRuns),
        recoveryMidRun: scenarioFigures(runs.recovery.get(contender.name) ?? [], healthyRuns),
      };
    }
    const breakers = figures[contenders[0]?.name ?? ""];
    return {
      settings: { ...settings, targets: NOISY_KINDS },
      contenders: figures,
      breakersWithinP99Limit: {
        limit: P99_LIMIT,
        outage: within(breakers?.outage.vsAllHealthy.p99),
        recoveryMidRun: within(breakers?.recoveryMidRun.vsAllHealthy.p99),
      },
    };
  } finally {
    plainClients.destroy();
  }
};

import { setTimeout as sleep } from "node:timers/promises";
import { GetQueueAttributesCommand, SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import {
  type AwsClients,
  createAwsClients,
  type LocalAwsTarget,
} from "../lib/adapters/aws-clients.js";
import { LOCAL_CREDENTIALS } from "../lib/contract/local-identity.js";
import { createFunctionConcurrency } from "../lib/local/function-concurrency.js";
import { type BundleFigures, measureBundle } from "./bundle-figures.js";
import { type CeilingFigures, measureCeiling } from "./ceiling.js";
import { benchEnvelope, type Contender, DEFAULT_RETRY } from "./contender.js";
import { bareSqs } from "./contenders/bare-sqs.js";
import { createPowertoolsContender, powertools } from "./contenders/powertools.js";
import { ricochet } from "./contenders/ricochet.js";
import { type CapacityTotals, createCapacityCounter } from "./support/capacity-counter.js";
import { type CostFloor, costFloor } from "./support/cost-floor.js";
import { deliveryTimes, throughputOf } from "./support/delivery-times.js";
import { assertDeployable, type FunctionDeployment } from "./support/deployment.js";
import { type Bill, billPerMillionEvents } from "./support/list-prices.js";
import { type NoiseBand, noiseBand, type Verdict, verdictOf } from "./support/noise-band.js";
import {
  createRequestCounter,
  DYNAMO_READ_COMMANDS,
  DYNAMO_WRITE_COMMANDS,
} from "./support/request-counter.js";
import { median, type PairedRatio, pairedRatio, round3Ratio } from "./support/round-statistics.js";
import { percentile, retryGapSamples } from "./support/schedule-error.js";
import { type AnswerLatency, startSeededReceiver } from "./support/seeded-receiver.js";
import { type StoredItems, storedItemsOf } from "./support/stored-items.js";

export interface BenchOptions {
  readonly local: LocalAwsTarget;
  readonly events: number;
  /** Measured rounds: a multiple of the contenders' count, so each goes first equally often. */
  readonly rounds: number;
  /** Seed of the receiver's transient failures; the same for every contender. */
  readonly seed?: number;
  /** Share of calls answered 503 in the flaky scenario; default 0.3. */
  readonly failureRate?: number;
  /**
   * How long the receiver takes to answer each call (seeded, the same for every contender);
   * default at once. Real targets answer over a spread of times, which decides how an
   * invocation's retries can share a request.
   */
  readonly latency?: AnswerLatency | undefined;
  /** Also run every contender against a receiver that never fails; default true. */
  readonly healthy?: boolean;
  /**
   * The function concurrency every contender is given (its reserved concurrency), shared by all
   * of its event source mappings; default {@link DEFAULT_CONCURRENCY}.
   */
  readonly concurrency?: number;
  /**
   * Events submitted per second, in batches of 10; 0 (the default) sends them all at once. A rate
   * below the consumer's capacity keeps a backlog from inflating the retry scheduling error.
   */
  readonly submitRate?: number;
  /** How long one contender may take to deliver every event before the round fails. */
  readonly deliveryTimeoutMs?: number;
  /**
   * Events per contender in one unmeasured warm-up round, run exactly like a measured one (both
   * scenarios), before round 1; 0 for none; default `events`. DynamoDB Local's
   * JVM keeps compiling for thousands of requests: after a 50-event warm-up the first round ran
   * at half the rate of later ones, and after 1 000 healthy events still a third slower.
   */
  readonly warmupEvents?: number;
  /** The contenders, in round 1's order; default {@link CONTENDERS}. */
  readonly contenders?: readonly Contender[];
  /** What every contender is divided by, and its A/A twin; default {@link AGAINST_POWERTOOLS}. */
  readonly comparison?: Comparison;
  /** Build the orchestrator bundle and time its initialisation; default true. */
  readonly measureBundle?: boolean;
  /** Progress lines (to stderr in the CLI). */
  readonly progress?: (line: string) => void;
}

/**
 * Invocations at once per contender: two for each of Ricochet's two mappings at Lambda's lowest
 * maximum concurrency (2), and the same four for every other contender.
 */
const DEFAULT_CONCURRENCY = 4;

/** What a contender was given to work with in the run: the same budget for every one. */
export interface ContenderSetup {
  /** Invocations at once, shared by all of the contender's mappings. */
  readonly concurrency: number;
  /** Its deployment, as checked against AWS's deploy-time rules. */
  readonly deployment: FunctionDeployment;
}

/** One contender's figures: medians over the rounds. */
export interface ContenderFigures {
  readonly setup: ContenderSetup;
  /**
   * Events per second until 95% of the round's events were delivered (see
   * `bench/support/delivery-times.ts` for why not to the last one).
   */
  readonly eventsPerSecond: number;
  /** Ms from the first submit to the last event's first 2xx: the slowest retry chain. */
  readonly allDeliveredMs: number;
  /**
   * This contender's events/s divided by the baseline's in the same round (Powertools' unless
   * the run names another, {@link BenchResult.baseline}): median, lowest and highest over the
   * rounds (see {@link pairedRatio}); 1 for the baseline itself.
   */
  readonly eventsPerSecondVsBaseline: PairedRatio | null;
  /** That ratio read against the run's A/A band: a difference only outside it. */
  readonly verdictVsBaseline: Verdict | null;
  /** The most invocations that ran at once: never above `setup.concurrency`. */
  readonly peakConcurrency: number;
  /** Target calls per delivered event (1 plus the retries). */
  readonly attemptsPerEvent: number;
  readonly requestsPerEvent: number;
  /** AWS requests per delivered event, by `Service.Command`. */
  readonly requestsByApi: Record<string, number>;
  readonly dynamoWritesPerEvent: number;
  readonly dynamoWritesPerAttempt: number;
  readonly dynamoReadsPerEvent: number;
  /**
   * Write request units DynamoDB reported per delivered event, indexes included: what on-demand
   * billing charges for (requests count once; units count per KB and per index write).
   */
  readonly dynamoWriteUnitsPerEvent: number;
  /** Of those, the units spent on global secondary indexes. */
  readonly dynamoIndexWriteUnitsPerEvent: number;
  readonly dynamoReadUnitsPerEvent: number;
  /** SQS requests per delivered event (the sum of the `SQS.*` entries of `requestsByApi`). */
  readonly sqsRequestsPerEvent: number;
  /** The same as SQS bills them, each 64 KiB of a request's payload one request. */
  readonly sqsBilledRequestsPerEvent: number;
  /**
   * The same requests by the queue they named and command, e.g. `internal.ReceiveMessage`
   * (queues: `in` the producers', `internal` Ricochet's own, `dlq`): where a retry's cost goes.
   */
  readonly sqsRequestsByQueue: Record<string, number>;
  /** Lambda invocations per delivered event. */
  readonly lambdaInvocationsPerEvent: number;
  /** Billed Lambda milliseconds per delivered event (each invocation rounded up to 1 ms). */
  readonly lambdaBilledMsPerEvent: number;
  /** Bytes each event leaves in the table (items + DynamoDB's overhead) while kept. */
  readonly storedBytesPerEvent: number;
  /**
   * A million delivered events' bill by line, in dollars: SQS (billed requests), DynamoDB
   * writes, reads and storage (at the deployment's retention and point-in-time recovery), Lambda
   * requests and duration (at the deployment's memory and architecture). Medians per line.
   */
  readonly usdPerMillion: Bill;
  /** Of that, SQS + DynamoDB writes above the floor's (`BenchResult.floor`). */
  readonly usdAboveFloor: number;
  readonly cpuMsPerRecord: number;
  /** Ricochet: how late each retry's call came against the time its record scheduled. */
  readonly scheduleErrorP50Ms: number | null;
  readonly scheduleErrorP99Ms: number | null;
  /**
   * Every contender: ms from a failed call to the next call of the same event, at the receiver.
   * The retry delay as the target sees it.
   */
  readonly retryGapP50Ms: number | null;
  readonly retryGapP99Ms: number | null;
  /** Median DynamoDB size of a finished event's record item (1 write unit per started KB). */
  readonly recordBytesP50: number | null;
  readonly recordBytesMax: number | null;
  readonly bundleBytes: number | null;
  readonly initMs: number | null;
  /** The first (empty) batch after the import: the init work the function defers to it. */
  readonly firstBatchMs: number | null;
  /** `initMs + firstBatchMs`: the module work of a cold start, wherever it falls. */
  readonly coldStartMs: number | null;
  readonly ceilingFraction: number | null;
  /** Batches the poller reported failed (a handler that threw or timed out). */
  readonly failedBatches: number;
}

/** How noisy the run was: the same code under two names, compared like every contender. */
interface RunNoise {
  /** The A/A pair, e.g. `powertoolsAA` against `powertools`. */
  readonly pair: readonly [string, string];
  /** Its events/s ratio, round by round, in the flaky scenario. */
  readonly flakyRatio: PairedRatio | null;
  readonly flakyBand: NoiseBand | null;
  /** The same in the healthy scenario. */
  readonly healthyRatio: PairedRatio | null;
  readonly healthyBand: NoiseBand | null;
}

export interface BenchResult {
  readonly events: number;
  readonly rounds: number;
  readonly seed: number;
  readonly failureRate: number;
  /** The receiver's answer times, when it did not answer at once. */
  readonly latency?: AnswerLatency;
  /** Invocations at once, the same for every contender. */
  readonly concurrency: number;
  /** Events submitted per second; 0 when all were sent at once (then rates measure capacity). */
  readonly submitRate: number;
  /** Each round's contender order (round 1 first): balanced, each first equally often. */
  readonly order: readonly (readonly string[])[];
  /** The contender every other is divided by: `powertools`, or `ricochet` in a tracing run. */
  readonly baseline: string;
  readonly noise: RunNoise;
  /** The least any orchestrator keeping this contract could spend, flaky and healthy. */
  readonly floor: { readonly flaky: CostFloor; readonly healthy: CostFloor };
  /** Against the flaky receiver ({@link BenchResult.failureRate} of calls fail): the headline. */
  readonly contenders: Record<string, ContenderFigures>;
  /** Against a receiver that never fails: processing speed with no retry delays in the tail. */
  readonly healthy?: Record<string, ContenderFigures>;
  readonly ceiling: CeilingFigures & { readonly rounds: number };
}

/** The A/A twin of the baseline: Powertools again under another name, so its ratio is noise. */
const powertoolsAA: Contender = createPowertoolsContender("powertoolsAA");

/** The contenders; round `r` runs them rotated by `r - 1`, so none always goes first. */
export const CONTENDERS: readonly Contender[] = [ricochet, powertools, powertoolsAA, bareSqs];

/** What the contenders are divided by, and its A/A twin, whose ratio to it is the run's noise. */
interface Comparison {
  readonly baseline: Contender;
  readonly twin: Contender;
}

/** The default comparison: against Powertools, the recipe a team would otherwise deploy. */
const AGAINST_POWERTOOLS: Comparison = { baseline: powertools, twin: powertoolsAA };

/**
 * The order of round `round` (1-based; 0 is the warm-up) among `contenders`: drift and
 * after-effects fall on each in turn.
 */
export const contendersInRound = (
  round: number,
  contenders: readonly Contender[] = CONTENDERS,
): readonly Contender[] => {
  const n = contenders.length;
  const shift = (((round - 1) % n) + n) % n;
  return [...contenders.slice(shift), ...contenders.slice(0, shift)];
};

interface RoundFigures {
  readonly delivered: number;
  readonly wallMs: number;
  readonly eventsPerSecond: number;
  readonly targetCalls: number;
  readonly records: number;
  readonly cpuMs: number;
  readonly requests: Record<string, number>;
  /** SQS requests by `queueRole.Command`. */
  readonly sqsRequests: Record<string, number>;
  readonly sqsBilled: number;
  readonly invocations: number;
  readonly billedMs: number;
  readonly peakConcurrency: number;
  readonly stored: StoredItems;
  readonly capacity: CapacityTotals;
  readonly extra: Record<string, number | null>;
  readonly retryGaps: readonly number[];
  readonly failedBatches: number;
}

const medianOrNull = (values: readonly (number | null | undefined)[]): number | null => {
  const present = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  return present.length === 0 ? null : median(present);
};

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/** SDK clients on the local AWS; with `counter`, every request they make is counted. */
export const clientsFor = (
  local: LocalAwsTarget,
  counter?: ReturnType<typeof createRequestCounter>,
) =>
  createAwsClients({
    endpoints: local.endpoints,
    region: local.region,
    credentials: LOCAL_CREDENTIALS,
    middleware: counter === undefined ? [] : [counter.middleware],
    env: {},
  });

/** Messages in any state on all of `queueUrls`. */
export const liveMessages = async (
  clients: AwsClients,
  queueUrls: readonly string[],
): Promise<number> => {
  const counts = await Promise.all(
    queueUrls.map(async (queueUrl) => {
      const { Attributes = {} } = await clients.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["All"] }),
      );
      return (
        Number(Attributes.ApproximateNumberOfMessages ?? 0) +
        Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
        Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0)
      );
    }),
  );
  return counts.reduce((sum, n) => sum + n, 0);
};

interface RunSettings {
  readonly local: LocalAwsTarget;
  readonly events: number;
  readonly seed: number;
  readonly failureRate: number;
  readonly latency: AnswerLatency | undefined;
  readonly concurrency: number;
  readonly submitRate: number;
  readonly deliveryTimeoutMs: number;
}

const runContender = async (
  contender: Contender,
  round: number,
  options: RunSettings,
  plainClients: AwsClients,
): Promise<RoundFigures> => {
  const deployment = contender.deployment(DEFAULT_RETRY);
  assertDeployable(contender.name, deployment);
  const counter = createRequestCounter();
  const clients = clientsFor(options.local, counter);
  const capacity = createCapacityCounter();
  capacity.attach(clients.dynamodb);
  const receiver = await startSeededReceiver({
    seed: options.seed,
    failureRate: options.failureRate,
    latency: options.latency,
  });
  const concurrency = createFunctionConcurrency(options.concurrency);
  let failedBatches = 0;
  try {
    const prepared = await contender.prepare({
      clients,
      plainClients,
      receiver,
      retry: DEFAULT_RETRY,
      deployment,
      concurrency,
      pollerLogger: {
        error: () => {
          failedBatches += 1;
        },
      },
    });
    // The same ids for every contender: the receiver's failures are a function of the id.
    const prefix = options.failureRate === 0 ? "ok" : "ev";
    const eventIds = Array.from({ length: options.events }, (_, i) => `${prefix}-r${round}-${i}`);
    counter.reset();
    capacity.reset();
    const cpuBefore = process.cpuUsage();
    const startedAt = Date.now();
    prepared.start();
    for (let start = 0; start < eventIds.length; start += 10) {
      if (options.submitRate > 0) {
        await sleep(startedAt + (start / options.submitRate) * 1000 - Date.now());
      }
      await clients.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: prepared.queueUrl,
          Entries: eventIds.slice(start, start + 10).map((eventId, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify(benchEnvelope(receiver.baseUrl, eventId, start + i)),
          })),
        }),
      );
    }
    const until = Date.now() + options.deliveryTimeoutMs;
    while (receiver.delivered() < eventIds.length && Date.now() < until) await sleep(20);
    // Let the last results be recorded and messages deleted, so every event's requests count.
    while (
      (await liveMessages(plainClients, prepared.consumedQueueUrls)) > 0 &&
      Date.now() < until
    ) {
      await sleep(100);
    }
    await prepared.stop();
    const cpu = process.cpuUsage(cpuBefore);
    const requests = counter.snapshot();
    const sqsRequests = counter.sqsSnapshotByQueue();
    const consumed = capacity.snapshot();
    const extra = (await prepared.extraFigures?.(eventIds)) ?? {};
    const stored =
      prepared.tableName === undefined
        ? { items: 0, bytes: 0 }
        : await storedItemsOf(plainClients, prepared.tableName);
    const delivered = receiver.delivered();
    if (delivered < eventIds.length) {
      throw new Error(
        `${contender.name} delivered ${delivered} of ${eventIds.length} events in ${options.deliveryTimeoutMs} ms`,
      );
    }
    const invocations = prepared.invocations();
    return {
      delivered,
      wallMs: receiver.lastDeliveryAt() - startedAt,
      eventsPerSecond:
        throughputOf(deliveryTimes(receiver.calls, startedAt), eventIds.length) ?? Number.NaN,
      targetCalls: receiver.totalCalls(),
      records: prepared.recordsHandled(),
      cpuMs: (cpu.user + cpu.system) / 1000,
      requests,
      sqsRequests,
      sqsBilled: counter.sqsBilledRequests(),
      invocations: invocations.count,
      billedMs: invocations.billedMs,
      peakConcurrency: concurrency.peak,
      stored,
      capacity: consumed,
      extra,
      retryGaps: retryGapSamples(receiver.calls),
      failedBatches,
    };
  } finally {
    await receiver.stop();
    clients.destroy();
  }
};

const ratePerRound = (rounds: readonly RoundFigures[]): number[] =>
  rounds.map((r) => r.eventsPerSecond);

const sumWhere = (r: RoundFigures, keep: (command: string) => boolean) =>
  Object.entries(r.requests)
    .filter(([key]) => keep(key))
    .reduce((total, [, n]) => total + n, 0);
const isDynamo = (set: ReadonlySet<string>) => (key: string) => {
  const [service, command = ""] = key.split(".");
  return service === "DynamoDB" && set.has(command);
};
const isSqs = (key: string) => key.startsWith("SQS.");

/** The rounds pooled: every count summed, so per-event figures add up across their splits. */
const pooled = (rounds: readonly RoundFigures[]) => {
  const total = (pick: (r: RoundFigures) => number) => rounds.reduce((sum, r) => sum + pick(r), 0);
  const delivered = Math.max(
    1,
    total((r) => r.delivered),
  );
  return { total, perEvent: (pick: (r: RoundFigures) => number) => total(pick) / delivered };
};

/** The bill for a million events, every line, at the contender's deployment, rounds pooled. */
const billOf = (rounds: readonly RoundFigures[], deployment: FunctionDeployment): Bill => {
  const { perEvent } = pooled(rounds);
  const bill = billPerMillionEvents({
    sqsRequests: perEvent((r) => r.sqsBilled),
    dynamoWriteUnits: perEvent((r) => r.capacity.writeUnits),
    dynamoReadUnits: perEvent((r) => r.capacity.readUnits),
    storedBytes: perEvent((r) => r.stored.bytes),
    retentionSeconds: deployment.table?.retentionSeconds ?? 0,
    pointInTimeRecovery: deployment.table?.pointInTimeRecovery ?? false,
    lambdaInvocations: perEvent((r) => r.invocations),
    lambdaBilledMs: perEvent((r) => r.billedMs),
    memoryMb: deployment.memoryMb,
    architecture: deployment.architecture,
  });
  return {
    sqs: round3(bill.sqs),
    dynamoWrites: round3(bill.dynamoWrites),
    dynamoReads: round3(bill.dynamoReads),
    dynamoStorage: round3(bill.dynamoStorage),
    lambdaRequests: round3(bill.lambdaRequests),
    lambdaDuration: round3(bill.lambdaDuration),
    total: round3(bill.total),
  };
};

interface SummaryInputs {
  readonly setup: ContenderSetup;
  readonly baseline: readonly RoundFigures[];
  readonly band: NoiseBand | null;
  readonly floor: CostFloor;
  readonly ceiling: number;
  readonly bundle: BundleFigures | undefined;
}

/**
 * One contender's figures. Rates are medians over the rounds (and paired with the baseline's,
 * round by round); counts and the bill pool the rounds, so a split (by API, by queue) adds up
 * to its total.
 */
const summarise = (rounds: readonly RoundFigures[], inputs: SummaryInputs): ContenderFigures => {
  const { total, perEvent: pooledPerEvent } = pooled(rounds);
  const perEvent = (pick: (r: RoundFigures) => number) => round3(pooledPerEvent(pick));
  const apis = [...new Set(rounds.flatMap((r) => Object.keys(r.requests)))].sort();
  const queueCalls = [...new Set(rounds.flatMap((r) => Object.keys(r.sqsRequests)))].sort();
  const eventsPerSecond = round3(median(ratePerRound(rounds)));
  const vsBaseline = round3Ratio(pairedRatio(ratePerRound(rounds), ratePerRound(inputs.baseline)));
  const bill = billOf(rounds, inputs.setup.deployment);
  const writes = (r: RoundFigures) => sumWhere(r, isDynamo(DYNAMO_WRITE_COMMANDS));
  const { bundle } = inputs;
  return {
    setup: inputs.setup,
    eventsPerSecond,
    allDeliveredMs: median(rounds.map((r) => r.wallMs)),
    eventsPerSecondVsBaseline: vsBaseline,
    verdictVsBaseline: verdictOf(vsBaseline, inputs.band),
    peakConcurrency: Math.max(0, ...rounds.map((r) => r.peakConcurrency)),
    attemptsPerEvent: perEvent((r) => r.targetCalls),
    requestsPerEvent: perEvent((r) => sumWhere(r, () => true)),
    requestsByApi: Object.fromEntries(
      apis.map((api) => [api, perEvent((r) => r.requests[api] ?? 0)]),
    ),
    dynamoWritesPerEvent: perEvent(writes),
    dynamoWritesPerAttempt: round3(
      total(writes) /
        Math.max(
          1,
          total((r) => r.targetCalls),
        ),
    ),
    dynamoReadsPerEvent: perEvent((r) => sumWhere(r, isDynamo(DYNAMO_READ_COMMANDS))),
    dynamoWriteUnitsPerEvent: perEvent((r) => r.capacity.writeUnits),
    dynamoIndexWriteUnitsPerEvent: perEvent((r) => r.capacity.indexWriteUnits),
    dynamoReadUnitsPerEvent: perEvent((r) => r.capacity.readUnits),
    sqsRequestsPerEvent: perEvent((r) => sumWhere(r, isSqs)),
    sqsBilledRequestsPerEvent: perEvent((r) => r.sqsBilled),
    sqsRequestsByQueue: Object.fromEntries(
      queueCalls.map((call) => [call, perEvent((r) => r.sqsRequests[call] ?? 0)]),
    ),
    lambdaInvocationsPerEvent: perEvent((r) => r.invocations),
    lambdaBilledMsPerEvent: perEvent((r) => r.billedMs),
    storedBytesPerEvent: perEvent((r) => r.stored.bytes),
    usdPerMillion: bill,
    usdAboveFloor: round3(
      bill.sqs + bill.dynamoWrites - (inputs.floor.bill.sqs + inputs.floor.bill.dynamoWrites),
    ),
    cpuMsPerRecord: round3(
      total((r) => r.cpuMs) /
        Math.max(
          1,
          total((r) => r.records),
        ),
    ),
    scheduleErrorP50Ms: medianOrNull(rounds.map((r) => r.extra.scheduleErrorP50Ms)),
    scheduleErrorP99Ms: medianOrNull(rounds.map((r) => r.extra.scheduleErrorP99Ms)),
    retryGapP50Ms: percentile(
      rounds.flatMap((r) => r.retryGaps),
      50,
    ),
    retryGapP99Ms: percentile(
      rounds.flatMap((r) => r.retryGaps),
      99,
    ),
    recordBytesP50: medianOrNull(rounds.map((r) => r.extra.recordBytesP50)),
    recordBytesMax: medianOrNull(rounds.map((r) => r.extra.recordBytesMax)),
    bundleBytes: bundle?.bundleBytes ?? null,
    initMs: bundle === undefined ? null : round3(bundle.initMs),
    firstBatchMs: bundle === undefined ? null : round3(bundle.firstBatchMs),
    coldStartMs: bundle === undefined ? null : round3(bundle.initMs + bundle.firstBatchMs),
    ceilingFraction: round3(eventsPerSecond / inputs.ceiling),
    failedBatches: total((r) => r.failedBatches),
  };
};

/** Refuses a comparison whose baseline or twin is not among the run's contenders. */
const checkCompared = (contenders: readonly Contender[], compared: readonly Contender[]): void => {
  const missing = compared.filter((c) => !contenders.some((run) => run.name === c.name));
  if (missing.length > 0) {
    throw new Error(
      `the comparison's ${missing.map((c) => c.name).join(" and ")} must be among the contenders (${contenders.map((c) => c.name).join(", ")})`,
    );
  }
};

/** Refuses a round count that would let one contender go first more often than another. */
const checkBalanced = (rounds: number, contenders: readonly Contender[]): void => {
  if (rounds % contenders.length !== 0) {
    throw new Error(
      `rounds must be a multiple of the ${contenders.length} contenders (${contenders.map((c) => c.name).join(", ")}) so that each goes first equally often; got ${rounds}`,
    );
  }
};

/**
 * Runs every contender on the same events against the same local AWS, interleaved round by round
 * and rotated (A B C D, B C D A, …) so machine noise and drift fall on all alike, after one
 * unmeasured warm-up round, then measures the ceiling once per round, and reports medians. Every
 * contender gets the same function concurrency; each must be deployable as it is set up.
 */
export const runBenchmark = async (options: BenchOptions): Promise<BenchResult> => {
  const contenders = options.contenders ?? CONTENDERS;
  const { baseline, twin } = options.comparison ?? AGAINST_POWERTOOLS;
  checkBalanced(options.rounds, contenders);
  checkCompared(contenders, [baseline, twin]);
  const settings: RunSettings = {
    local: options.local,
    events: options.events,
    seed: options.seed ?? 7,
    failureRate: options.failureRate ?? 0.3,
    latency: options.latency,
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    submitRate: options.submitRate ?? 0,
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 120_000,
  };
  for (const contender of contenders) {
    assertDeployable(contender.name, contender.deployment(DEFAULT_RETRY));
  }
  const progress = options.progress ?? (() => {});
  const plainClients = clientsFor(options.local);
  try {
    const perContender = new Map<string, RoundFigures[]>(contenders.map((c) => [c.name, []]));
    const perContenderHealthy = new Map<string, RoundFigures[]>(
      contenders.map((c) => [c.name, []]),
    );
    const healthy = options.healthy !== false;
    const ceilings: CeilingFigures[] = [];
    /** One round: healthy then flaky for each contender in the round's order. */
    const runRound = async (round: number, events: number, measured: boolean): Promise<void> => {
      const label = measured ? `round ${round}` : "warm-up";
      const order = contendersInRound(round, contenders);
      for (const contender of healthy ? order : []) {
        const figures = await runContender(
          contender,
          round,
          { ...settings, events, failureRate: 0 },
          plainClients,
        );
        if (measured) perContenderHealthy.get(contender.name)?.push(figures);
        progress(
          `${label} ${contender.name} (healthy): ${figures.delivered} events in ${figures.wallMs} ms`,
        );
      }
      for (const contender of order) {
        const figures = await runContender(contender, round, { ...settings, events }, plainClients);
        if (measured) perContender.get(contender.name)?.push(figures);
        progress(
          `${label} ${contender.name}: ${figures.delivered} events in ${figures.wallMs} ms, ${figures.targetCalls} target calls`,
        );
      }
    };

    const warmupEvents = options.warmupEvents ?? settings.events;
    if (warmupEvents > 0) await runRound(0, warmupEvents, false);
    for (let round = 1; round <= options.rounds; round += 1) {
      await runRound(round, settings.events, true);
    }
    // The ceilings run after all rounds, not between them: right after a ceiling, the next
    // contender's first-attempt backlog drained 10–35% slower (5 of 6 rounds traced), and with
    // the rotation the first contender to use DynamoDB after it was Ricochet in two rounds of three.
    for (let round = 1; round <= options.rounds; round += 1) {
      const ceiling = await measureCeiling(plainClients, {
        messages: settings.events,
        pollers: settings.concurrency,
        batchSize: 10,
      });
      ceilings.push(ceiling);
      progress(`ceiling ${round}: ${ceiling.attemptsPerSecond.toFixed(1)} attempts/s`);
    }
    const ceiling = median(ceilings.map((c) => c.attemptsPerSecond));
    const bundle = options.measureBundle === false ? undefined : await measureBundle(options.local);
    const floorOf = (failureRate: number) =>
      costFloor({ failureRate, maxAttempts: DEFAULT_RETRY.maxAttempts, batchSize: 10 });
    const floor = { flaky: floorOf(settings.failureRate), healthy: floorOf(0) };
    const aaRatio = (rounds: Map<string, RoundFigures[]>) =>
      round3Ratio(
        pairedRatio(
          ratePerRound(rounds.get(twin.name) ?? []),
          ratePerRound(rounds.get(baseline.name) ?? []),
        ),
      );
    const noise: RunNoise = {
      pair: [twin.name, baseline.name],
      flakyRatio: aaRatio(perContender),
      flakyBand: noiseBand(aaRatio(perContender)),
      healthyRatio: healthy ? aaRatio(perContenderHealthy) : null,
      healthyBand: healthy ? noiseBand(aaRatio(perContenderHealthy)) : null,
    };
    const figuresOf = (
      rounds: Map<string, RoundFigures[]>,
      band: NoiseBand | null,
      scenarioFloor: CostFloor,
    ) =>
      Object.fromEntries(
        contenders.map((c) => [
          c.name,
          summarise(rounds.get(c.name) ?? [], {
            setup: { concurrency: settings.concurrency, deployment: c.deployment(DEFAULT_RETRY) },
            baseline: rounds.get(baseline.name) ?? [],
            band,
            floor: scenarioFloor,
            ceiling,
            bundle: c.name === ricochet.name ? bundle : undefined,
          }),
        ]),
      );
    return {
      events: settings.events,
      rounds: options.rounds,
      seed: settings.seed,
      failureRate: settings.failureRate,
      baseline: baseline.name,
      ...(settings.latency === undefined ? {} : { latency: settings.latency }),
      concurrency: settings.concurrency,
      submitRate: settings.submitRate,
      order: Array.from({ length: options.rounds }, (_, i) =>
        contendersInRound(i + 1, contenders).map((c) => c.name),
      ),
      noise,
      floor,
      contenders: figuresOf(perContender, noise.flakyBand, floor.flaky),
      ...(healthy
        ? { healthy: figuresOf(perContenderHealthy, noise.healthyBand, floor.healthy) }
        : {}),
      ceiling: {
        attemptsPerSecond: round3(ceiling),
        messages: settings.events,
        wallMs: median(ceilings.map((c) => c.wallMs)),
        rounds: ceilings.length,
      },
    };
  } finally {
    plainClients.destroy();
  }
};

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createAwsClients, type LocalAwsTarget } from "../../lib/adapters/aws-clients.js";
import { LOCAL_CREDENTIALS } from "../../lib/contract/local-identity.js";
import { isTerminal } from "../../lib/core/status.js";
import { startLocalAws } from "../../lib/local/start-local-aws.js";
import type { AdversaryMark } from "../support/adversarial-producer.js";
import {
  type DeployedTimings,
  deployedTimings,
  type TimingRatios,
  timingRatios,
} from "../support/deployed-timings.js";
import { listingsOf } from "../support/operator-renderings.js";
import { streamFor } from "../support/random-streams.js";
import { ALL_AWS_FAULTS, type AwsFault } from "./aws-fault-injector.js";
import { createChaosAdversary } from "./chaos-adversary.js";
import { cleanUnderFaults, removedBy } from "./chaos-clean.js";
import { makeChaosEvents, submitChaosEvents } from "./chaos-events.js";
import { type ChaosCall, startChaosReceiver } from "./chaos-receiver.js";
import { type ChaosFindings, judgeChaosRun } from "./chaos-report.js";
import { createChaosResources, inputQueuesOf } from "./chaos-resources.js";
import { EventTemper, Reply } from "./chaos-script.js";
import { collectMessages, inputQueueCounts, scanRecords, totalOf } from "./chaos-state.js";
import { claimTraceFile, readClaimTraces } from "./claim-trace.js";
import { startWorkerSupervisor } from "./worker-supervisor.js";

/**
 * The deployed timings ten times shorter (a 6 s function timeout, 36 s visibility timeout, 1 s
 * target timeout, 0.5 s lease margin), so lease expiries and takeovers happen within seconds
 * while every ratio stays the deployment's.
 */
export const CHAOS_TIME_SCALE = 10;

/** Share of events whose first retry's result write fails (an aimed AWS fault). */
const RESULT_WRITE_FAULT_SHARE = 0.1;

/** Beyond the function timeout, how long a stopping worker may take to finish its batches. */
const STOP_GRACE_BEYOND_TIMEOUT_MS = 4_000;
/** How often progress is checked. */
const POLL_MS = 2_000;
/**
 * How long the queues may take to settle at the end: a message hidden by a killed worker comes
 * back after a visibility timeout; this is that and some.
 */
const settleTimeoutMs = (timings: DeployedTimings): number =>
  timings.visibilityTimeoutSeconds * 1000 + 10_000;
/**
 * Once every event is terminal, how long the leftover copies (duplicates hidden by a lease, a
 * failed delete that brings a message back after a visibility timeout) may take to be consumed
 * before a live message beside a terminal record counts as a violation.
 */
const drainGraceMs = (timings: DeployedTimings): number =>
  2 * timings.visibilityTimeoutSeconds * 1000;

export interface ChaosOptions {
  readonly seed: number;
  readonly events: number;
  readonly workers?: number;
  /** Most SIGKILLs of workers; default one per 100 events, at least 1, at most 20. */
  readonly kills?: number;
  /** Probability of a fault per AWS SDK HTTP attempt; default 0.03. */
  readonly faultRate?: number;
  /** The run gives up waiting for terminal states after this long; default 900 s. */
  readonly timeoutSeconds?: number;
  /** How many times shorter than deployed every timing is; default {@link CHAOS_TIME_SCALE}. */
  readonly timeScale?: number;
  /** Existing local AWS (e.g. the test suite's); by default the run starts and stops its own. */
  readonly local?: LocalAwsTarget;
  /** Aborting stops the run early; it still cleans up and reports. */
  readonly signal?: AbortSignal;
  /** Progress lines (stderr in the CLI). */
  readonly progress?: (line: string) => void;
}

/** The summary of one chaos run, as `npm run chaos -- --json` prints it. */
export interface ChaosReport extends ChaosFindings {
  readonly seed: number;
  readonly events: number;
  /** The timings the run used: the deployed ones scaled in time, never in ratio. */
  readonly ratios: TimingRatios;
  readonly workerKills: number;
  readonly workerCrashes: number;
  readonly faultsInjected: {
    readonly aws: Record<AwsFault, number>;
    readonly receiver: Record<Exclude<Reply, "ok">, number>;
  };
  /** Hostile messages the adversarial producer sent, by kind. */
  readonly hostile: Readonly<Record<AdversaryMark, number>>;
  /** Events whose body was the largest valid envelope, full of numbers. */
  readonly bulky: number;
  /** Whether every event reached a terminal state and the queue drained before the timeout. */
  readonly quiescent: boolean;
  readonly seconds: number;
}

/** How many of the receiver's calls got each failure. */
const receiverFaultsOf = (calls: readonly ChaosCall[]): Record<Exclude<Reply, "ok">, number> => {
  const faults = {
    [Reply.SERVER_ERROR]: 0,
    [Reply.TOO_MANY_REQUESTS]: 0,
    [Reply.SLOW]: 0,
    [Reply.RESET]: 0,
    [Reply.BAD_REQUEST]: 0,
  };
  for (const call of calls) if (call.reply !== Reply.OK) faults[call.reply] += 1;
  return faults;
};

/**
 * One chaos run on local AWS: submits `events` events (and bulky ones), lets worker processes
 * deliver them to a misbehaving receiver under injected AWS faults, random SIGKILLs and a hostile
 * producer, waits until everything is terminal and both input queues are empty (or the timeout),
 * then judges the table, the queues, the claim traces and the receiver's log. Everything it
 * started is stopped before it returns or throws.
 */
export const runChaos = async (options: ChaosOptions): Promise<ChaosReport> => {
  const started = Date.now();
  const progress = options.progress ?? (() => undefined);
  const workers = options.workers ?? 3;
  const maxKills = options.kills ?? Math.min(20, Math.max(1, Math.floor(options.events / 100)));
  const timeoutMs = (options.timeoutSeconds ?? 900) * 1000;
  const timings = deployedTimings(options.timeScale ?? CHAOS_TIME_SCALE);
  const cleanup: (() => Promise<void>)[] = [];
  const awsFaults = Object.fromEntries(ALL_AWS_FAULTS.map((f) => [f, 0])) as Record<
    AwsFault,
    number
  >;
  try {
    let local = options.local;
    if (local === undefined) {
      progress("starting local AWS");
      const own = await startLocalAws({ env: {} });
      cleanup.push(() => own.stop());
      local = own;
    }
    const clients = createAwsClients({
      endpoints: local.endpoints,
      region: local.region,
      credentials: LOCAL_CREDENTIALS,
      env: {},
    });
    cleanup.push(async () => clients.destroy());
    const resources = await createChaosResources(clients, {
      prefix: `chaos-${options.seed}`,
      visibilityTimeoutSeconds: timings.visibilityTimeoutSeconds,
      maxReceiveCount: timings.maxReceiveCount,
    });
    const inputQueues = inputQueuesOf(resources);
    const traceDirectory = await mkdtemp(join(tmpdir(), "ricochet-chaos-"));
    cleanup.push(() => rm(traceDirectory, { recursive: true, force: true }));
    // The receiver's URL goes into every target, so it starts first and learns the bulky
    // events (which it refuses at once) when they are made.
    let bulky: ReadonlyMap<string, string> = new Map();
    const receiver = await startChaosReceiver({
      seed: options.seed,
      targetTimeoutMs: timings.targetTimeoutMs,
      temperFor: (eventId) => (bulky.has(eventId) ? EventTemper.REFUSED_AT_ONCE : undefined),
    });
    cleanup.push(() => receiver.stop());
    const events = makeChaosEvents(options.seed, options.events, receiver.url, timings);
    bulky = events.bulkyBodies;
    const adversary = createChaosAdversary({
      seed: options.seed,
      sqs: clients.sqs,
      queueUrl: resources.ingressQueueUrl,
      deadLetterQueueUrl: resources.deadLetterQueueUrl,
      envelopes: events.envelopes,
      receiverUrl: receiver.url,
      targetTimeoutMs: timings.targetTimeoutMs,
    });

    const supervisor = startWorkerSupervisor({
      workers,
      maxKills,
      killWindowMs: timeoutMs,
      killIntervalMs: [1_000, 4_000],
      random: streamFor(options.seed, "kills"),
      stopGraceMs: timings.functionTimeoutMs + STOP_GRACE_BEYOND_TIMEOUT_MS,
      onReport: (report) => {
        if (report.type === "fault") awsFaults[report.fault] += 1;
        else adversary.observe(report.eventId, report.status);
      },
      settingsFor: (index, incarnation) => ({
        workerId: `worker-${index}.${incarnation}`,
        seed: options.seed,
        faultRate: options.faultRate ?? 0.03,
        resultWriteFaultShare: RESULT_WRITE_FAULT_SHARE,
        claimTraceFile: claimTraceFile(traceDirectory, `worker-${index}.${incarnation}`),
        endpoints: { sqs: local.endpoints.sqs, dynamodb: local.endpoints.dynamodb },
        region: local.region,
        ...resources,
        leaseMarginMs: timings.leaseMarginMs,
        functionTimeoutMs: timings.functionTimeoutMs,
        visibilityTimeoutSeconds: timings.visibilityTimeoutSeconds,
        batchSize: 10,
        pollers: 2,
      }),
    });
    cleanup.push(() => supervisor.stop());

    const { eventIds } = events;
    progress(`starting ${workers} workers; submitting ${eventIds.length} events`);
    await Promise.all([
      submitChaosEvents(clients.sqs, resources.ingressQueueUrl, events),
      supervisor.start(),
    ]);
    supervisor.startKilling();

    const deadline = started + timeoutMs;
    let allTerminal = false;
    let drainDeadline = Number.POSITIVE_INFINITY;
    let quiescent = false;
    while (!quiescent && Date.now() < Math.min(deadline, drainDeadline)) {
      if (options.signal?.aborted === true) break;
      await sleep(POLL_MS, undefined, { signal: options.signal }).catch(() => undefined);
      const records = await scanRecords(clients, resources.tableName);
      const terminal = eventIds.filter((id) => {
        const record = records.get(id);
        return record !== undefined && isTerminal(record.status);
      }).length;
      const queued = totalOf(await inputQueueCounts(clients, inputQueues));
      progress(
        `${Math.round((Date.now() - started) / 1000)} s: ${terminal}/${eventIds.length} terminal, ` +
          `${queued} on the queue, ${supervisor.kills} kills, ${receiver.calls.length} calls`,
      );
      if (terminal === eventIds.length && !allTerminal) {
        allTerminal = true;
        drainDeadline = Date.now() + drainGraceMs(timings);
      }
      quiescent = allTerminal && queued === 0;
    }

    progress("stopping workers");
    await supervisor.stop();
    await adversary.settle();
    // Messages hidden by a worker (in flight, lease held, ahead) or delayed must reappear before
    // the queue is read, or a live message would be missed and its event counted as lost.
    const settleBy = options.signal?.aborted === true ? 0 : Date.now() + settleTimeoutMs(timings);
    for (;;) {
      const counts = await inputQueueCounts(clients, inputQueues);
      if (counts.inFlight + counts.delayed === 0 || Date.now() > settleBy) break;
      await sleep(500);
    }
    progress("cleaning the dead-letter queue");
    const cleaned = await cleanUnderFaults({
      clients,
      deadLetterQueueUrl: resources.deadLetterQueueUrl,
      tableName: resources.tableName,
      seed: options.seed,
    });
    const [records, ingress, deadLetters] = [
      await scanRecords(clients, resources.tableName),
      (await Promise.all(inputQueues.map((url) => collectMessages(clients, url)))).flat(),
      await collectMessages(clients, resources.deadLetterQueueUrl),
    ];
    const findings = judgeChaosRun({
      eventIds,
      records,
      ingress,
      deadLetters,
      calls: receiver.calls,
      expectDrained: allTerminal && options.signal?.aborted !== true,
      targetTimeoutMs: timings.targetTimeoutMs,
      traces: readClaimTraces(traceDirectory),
      accepted: events.accepted,
      conflictsSent: adversary.tally.conflictsSent,
      bodies: events.bulkyBodies,
      forgedDeadLetterBodies: adversary.tally.forgedDeadLetterBodies,
      cleaned: removedBy(cleaned, deadLetters),
      views: {
        records: [...records.values()],
        deadLetters: listingsOf(deadLetters, records),
        targets: [],
        cleans: cleaned.reports,
        redrives: [],
        nowMs: Date.now(),
      },
    });
    return {
      seed: options.seed,
      events: options.events,
      ratios: timingRatios(timings),
      ...findings,
      workerKills: supervisor.kills,
      workerCrashes: supervisor.crashes,
      faultsInjected: { aws: { ...awsFaults }, receiver: receiverFaultsOf(receiver.calls) },
      hostile: { ...adversary.tally.sent },
      bulky: events.bulkyBodies.size,
      quiescent,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  }
};

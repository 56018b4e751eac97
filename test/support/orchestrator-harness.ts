import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type MessageAttributeValue, SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  type OperatorReport,
  runOperatorRequest,
} from "../../lib/app/operator/operator-function.js";
import { type RedriveReport, redrive } from "../../lib/app/operator/redrive.js";
import type { RedriveDeps } from "../../lib/app/operator/redrive-deps.js";
import type { RedriveRequestInput } from "../../lib/app/operator/redrive-request.js";
import type { ReplayDeps } from "../../lib/app/operator/replay.js";
import { type Breaker, BreakerState } from "../../lib/core/circuit-breaker.js";
import type { DeadLetterMessage } from "../../lib/core/dead-letter.js";
import type { Envelope } from "../../lib/core/envelope.js";
import { CountingMetrics } from "../../lib/core/observability.js";
import type { PolicyOverride } from "../../lib/core/policy.js";
import type {
  DeadLetterQueue,
  EventStore,
  ReceivedMessage,
  RecordResultRequest,
} from "../../lib/core/ports.js";
import type { EventRecord } from "../../lib/core/record.js";
import type { EventStatus } from "../../lib/core/status.js";
import { naturalTargetKey } from "../../lib/core/target-key.js";
import type { Tracer } from "../../lib/core/tracing.js";
import { retentionSeconds } from "../../lib/runtime/config.js";
import { createPorts, type RicochetPorts } from "../../lib/runtime/create-ports.js";
import { inProcessRedriveDeps } from "../../lib/runtime/in-process-redrive-deps.js";
import { countingCallerIdentity } from "./counting-caller-identity.js";
import { peekDeadLetters, receiveEvents } from "./harness-queue-reads.js";
import {
  waitFor,
  waitForQueueEmpty,
  waitForStatus,
  waitUntilAllTerminal,
} from "./harness-waits.js";
import { harnessWorkers, type WorkerOptions } from "./harness-workers.js";
import {
  createTestQueues,
  createTestTable,
  type TestClientOptions,
  type TestQueues,
  testClients,
} from "./local-aws.js";
import { type Script, ScriptedReceiver, type ScriptedReply } from "./scripted-receiver.js";
import {
  failFirstResultWrite,
  failingDeadLetterSends,
  killAfterFirstSend,
  slowStore,
} from "./store-faults.js";

type Reply = number | ScriptedReply;

export type { WorkerOptions } from "./harness-workers.js";

/**
 * Everything an orchestrator integration test needs: a queue pair and a table on the emulators,
 * a scripted receiver, workers driven by the real event-source poller, and ways to look inside.
 */
export const createOrchestratorHarness = async (
  prefix: string,
  options: Pick<TestClientOptions, "lambdaEndpoint" | "middleware"> = {},
) => {
  const clients = testClients(options);
  const queues: TestQueues = await createTestQueues(prefix);
  const tableName = await createTestTable(prefix);
  const receiver = new ScriptedReceiver(() => ({ status: 200 }));
  const baseUrl = await receiver.start();
  /** When `startWorkers` last ran: a breaker opened before it was opened by other workers. */
  let workersStartedAtMs = 0;
  const metrics = new CountingMetrics();
  const workers = harnessWorkers({ clients, queues, tableName, metrics });
  const { config } = workers;
  const ports: RicochetPorts = createPorts(config, clients);
  const redriveDeps = (): RedriveDeps => inProcessRedriveDeps(ports, config);

  const harness = {
    clients,
    queues,
    tableName,
    receiver,
    baseUrl,
    metrics,
    store: ports.store,
    ports,
    config,
    orchestrator: workers.orchestrator,

    /** An envelope to the scripted receiver; `policy` and target fields as the test needs. */
    envelope(
      eventId: string,
      policy: PolicyOverride,
      target: { timeoutMs?: number; group?: string } = {},
    ): Envelope {
      return {
        eventId,
        target: { type: "http", url: `${baseUrl}/${eventId}`, ...target },
        payload: { eventId },
        policy,
      };
    },

    /** Scripts replies per event, call by call; after the script the last reply repeats. */
    script(replies: Record<string, Reply[]> | Script): void {
      if (typeof replies === "function") {
        receiver.setScript(replies);
        return;
      }
      receiver.setScript((eventId, callIndex) => {
        const list = replies[eventId] ?? [200];
        const reply = list[Math.min(callIndex, list.length - 1)] ?? 200;
        return typeof reply === "number" ? { status: reply } : reply;
      });
    },

    /** A script failing `rate` of calls with 503, decided by a hash of seed, event and call only. */
    seededFailures(seed: number, rate: number): Script {
      return (eventId, callIndex) => {
        const digest = createHash("sha256").update(`${seed}:${eventId}:${callIndex}`).digest();
        return { status: digest.readUInt32BE(0) / 2 ** 32 < rate ? 503 : 200 };
      };
    },

    /** Starts `count` workers, each polling both input queues like the deployed function. */
    async startWorkers(options: WorkerOptions = {}): Promise<void> {
      workersStartedAtMs = Date.now();
      workers.start(options);
    },

    stopWorkers(): Promise<void> {
      return workers.stop();
    },

    async submit(envelopes: readonly Envelope[]): Promise<void> {
      await harness.submitRaw(envelopes.map((e) => JSON.stringify(e)));
    },

    /**
     * Sends bodies as a producer would: on the ingress queue, with `attributes` on every message
     * (a hostile producer's forged `ricochet.*` attributes, say).
     */
    async submitRaw(
      bodies: readonly string[],
      attributes?: Record<string, MessageAttributeValue>,
    ): Promise<void> {
      for (let i = 0; i < bodies.length; i += 10) {
        await clients.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queues.ingressQueueUrl,
            Entries: bodies.slice(i, i + 10).map((body, j) => ({
              Id: String(j),
              MessageBody: body,
              MessageAttributes: attributes,
            })),
          }),
        );
      }
    },

    waitFor(predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
      return waitFor(predicate, timeoutMs);
    },

    /**
     * Waits until the receiver's breaker (or `key`'s) is open in the table. A worker new to a
     * target holds its failures a flush interval, so a count of failed calls says little of when.
     */
    /**
     * Waits until `key`'s breaker is open in the store, opened since the workers last started: the
     * tests of a file share the receiver, so its key's item may still say open from an earlier
     * test, before this test's workers have opened (and learned) it themselves.
     */
    async waitForBreakerOpen(
      key = naturalTargetKey({ type: "http", url: baseUrl }),
      timeoutMs = 20_000,
    ) {
      const deadline = Date.now() + timeoutMs;
      const openedHere = (breaker: Breaker | undefined) =>
        breaker?.state === BreakerState.OPEN && breaker.changedAtMs >= workersStartedAtMs;
      while (!openedHere((await ports.targetState.get(key))?.breaker)) {
        if (Date.now() > deadline) throw new Error(`${key}'s breaker did not open`);
        await sleep(100);
      }
    },

    waitForStatus(eventId: string, status: EventStatus, timeoutMs = 20_000): Promise<EventRecord> {
      return waitForStatus(ports.store, eventId, status, timeoutMs);
    },

    /** Waits until every event is terminal; returns those that are not (none, when nothing is lost). */
    waitUntilAllTerminal(eventIds: readonly string[], timeoutMs: number): Promise<string[]> {
      return waitUntilAllTerminal(ports.store, eventIds, timeoutMs);
    },

    waitForQueueEmpty(timeoutMs = 20_000): Promise<void> {
      return waitForQueueEmpty(clients.sqs, queues, timeoutMs);
    },

    /** Every dead-letter copy Ricochet wrote, read without consuming them. */
    deadLetters(): Promise<DeadLetterMessage[]> {
      return peekDeadLetters(clients.sqs, queues.deadLetterQueueUrl);
    },

    /**
     * Receives the messages of `eventIds` from both input queues, as a worker would; others are
     * released.
     */
    receiveIngress(eventIds: readonly string[]): Promise<ReceivedMessage[]> {
      return receiveEvents(clients.sqs, queues, eventIds);
    },

    /** The harness's store with `latencyMs` added before every call (store-faults.ts). */
    slowStore(latencyMs: number): EventStore {
      return slowStore(ports.store, latencyMs);
    },

    /** The harness's store, whose first result write for `eventId` never returns. */
    killAfterFirstSend(eventId: string) {
      return killAfterFirstSend(ports.store, eventId);
    },

    /** The harness's store, whose first result write for `eventId` matching `when` fails. */
    failFirstResultWrite(eventId: string, when: (request: RecordResultRequest) => boolean) {
      return failFirstResultWrite(ports.store, eventId, when);
    },

    /** What a replay over the harness's queues and store needs, as an operator would run it. */
    replayDeps(): ReplayDeps {
      return {
        store: ports.store,
        ingressQueue: ports.ingress,
        clock: Date.now,
        defaultPolicy: config.defaultPolicy,
        callerIdentity: countingCallerIdentity().identity,
      };
    },

    /** Runs a redrive over the harness's queues and store, as an operator would. */
    redrive(input: RedriveRequestInput): Promise<RedriveReport> {
      return redrive(redriveDeps(), input);
    },

    /** Runs an operator function's request (any action) over the harness's queues and store. */
    operatorRequest(request: unknown, tracer?: Tracer): Promise<OperatorReport> {
      return runOperatorRequest(
        {
          ...redriveDeps(),
          retentionSeconds: retentionSeconds(config.recordRetentionDays),
          tracer,
        },
        request,
      );
    },

    /** The harness's dead-letter queue, whose first `count` sends fail. */
    failingDeadLetterSends(count: number): {
      deadLetters: DeadLetterQueue;
      failures: () => number;
    } {
      return failingDeadLetterSends(ports.deadLetters, count);
    },

    async close(): Promise<void> {
      await harness.stopWorkers();
      await receiver.stop();
      // Only a set of its own: the shared one serves the rest of the test file.
      if (options.lambdaEndpoint !== undefined) clients.destroy();
    },
  };
  return harness;
};

export type OrchestratorHarness = Awaited<ReturnType<typeof createOrchestratorHarness>>;

/**
 * One harness for a test file: created before the first test, workers stopped after each,
 * closed after the last. The returned object stands for the harness once it exists (a proxy,
 * so that helpers at the top of a test file can close over it). `options` is read when the
 * harness is created, so it may name what an earlier `beforeAll` started (a Lambda stand-in).
 */
export const useOrchestratorHarness = (
  prefix: string,
  options: () => Parameters<typeof createOrchestratorHarness>[1] = () => ({}),
): OrchestratorHarness => {
  let harness: OrchestratorHarness | undefined;
  beforeAll(async () => {
    harness = await createOrchestratorHarness(prefix, options());
  });
  afterEach(async () => {
    await harness?.stopWorkers();
  });
  afterAll(async () => {
    await harness?.close();
  });
  return new Proxy({} as OrchestratorHarness, {
    get: (_target, key) => {
      if (harness === undefined) throw new Error("the harness is created in beforeAll");
      return Reflect.get(harness, key);
    },
  });
};

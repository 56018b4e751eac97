import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from "@aws-sdk/client-sqs";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  reservedAttributeNames,
  scheduleFromAttributes,
} from "../../lib/adapters/message-schedule.js";
import { DEAD_LETTER_SUMMARY_ATTRIBUTE } from "../../lib/adapters/sqs-dead-letter-queue.js";
import { parseDeadLetterCopy } from "../../lib/app/dead-letter-scan.js";
import type { Orchestrator } from "../../lib/app/orchestrator.js";
import { type RedriveReport, redrive } from "../../lib/app/redrive.js";
import type { RedriveRequestInput } from "../../lib/app/redrive-request.js";
import { ENV } from "../../lib/contract/environment.js";
import type { DeadLetterMessage } from "../../lib/core/dead-letter.js";
import type { Envelope } from "../../lib/core/envelope.js";
import { QueueUnavailableError, StoreUnavailableError } from "../../lib/core/errors.js";
import { CountingMetrics, silentLog } from "../../lib/core/observability.js";
import type { PolicyOverride } from "../../lib/core/policy.js";
import {
  type DeadLetterQueue,
  type EventStore,
  MessageOrigin,
  type ReceivedMessage,
  type RecordResultRequest,
} from "../../lib/core/ports.js";
import type { EventRecord } from "../../lib/core/record.js";
import { type EventStatus, isTerminal } from "../../lib/core/status.js";
import { startEventSourcePoller } from "../../lib/local/event-source-poller.js";
import { localConfig } from "../../lib/local/local-config.js";
import type { RicochetConfig } from "../../lib/runtime/config.js";
import {
  createOrchestratorRuntime,
  createPorts,
  type RicochetPorts,
} from "../../lib/runtime/create-ports.js";
import { createSqsBatchHandler } from "../../lib/runtime/sqs-batch-handler.js";
import {
  createTestQueues,
  createTestTable,
  type TestClientOptions,
  type TestQueues,
  testClients,
} from "./local-aws.js";
import { type Script, ScriptedReceiver, type ScriptedReply } from "./scripted-receiver.js";

/** Lease margin in these tests: short, so takeovers after a "crash" happen within seconds. */
const TEST_LEASE_MARGIN_MS = 1_000;

type Reply = number | ScriptedReply;

export interface WorkerOptions {
  readonly count?: number;
  readonly store?: EventStore;
  readonly deadLetters?: DeadLetterQueue;
  readonly batchSize?: number;
  readonly visibilityTimeoutSeconds?: number;
  /** The poller's stand-in for the function timeout; default 30 s. */
  readonly functionTimeoutMs?: number;
  readonly hopSeconds?: number;
  /** More `RICOCHET_*` variables for the workers' configuration (limits, default policy). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Everything an orchestrator integration test needs: a queue pair and a table on the emulators,
 * a scripted receiver, workers driven by the real event-source poller, and ways to look inside.
 */
export const createOrchestratorHarness = async (
  prefix: string,
  options: Pick<TestClientOptions, "lambdaEndpoint"> = {},
) => {
  const clients = testClients(options);
  const queues: TestQueues = await createTestQueues(prefix);
  const tableName = await createTestTable(prefix);
  const receiver = new ScriptedReceiver(() => ({ status: 200 }));
  const baseUrl = await receiver.start();
  const metrics = new CountingMetrics();
  const pollers: { stop(): Promise<void> }[] = [];

  const configWith = (overrides: NodeJS.ProcessEnv = {}): RicochetConfig =>
    localConfig({ tableName, ...queues }, overrides);
  const config = configWith();
  const ports: RicochetPorts = createPorts(config, clients);

  const orchestrator = (options: WorkerOptions = {}): Orchestrator => {
    const workerConfig =
      options.hopSeconds === undefined && options.env === undefined
        ? config
        : configWith({
            ...(options.hopSeconds === undefined
              ? {}
              : { [ENV.HOP_SECONDS]: String(options.hopSeconds) }),
            ...options.env,
          });
    return createOrchestratorRuntime({
      config: workerConfig,
      ports: {
        ...createPorts(workerConfig, clients),
        ...(options.store === undefined ? {} : { store: options.store }),
        ...(options.deadLetters === undefined ? {} : { deadLetters: options.deadLetters }),
      },
      log: silentLog,
      metrics,
      leaseMarginMs: TEST_LEASE_MARGIN_MS,
    });
  };

  const handlerFor = (target: Orchestrator) =>
    createSqsBatchHandler(target, { internalQueue: queues.internalQueueUrl });

  const receiveAll = async (
    queueUrl: string,
  ): Promise<{ body: string; receiptHandle: string; summary?: string | undefined }[]> => {
    const seen: { body: string; receiptHandle: string; summary?: string | undefined }[] = [];
    for (;;) {
      const { Messages = [] } = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 20,
          MessageAttributeNames: ["All"],
        }),
      );
      if (Messages.length === 0) break;
      for (const m of Messages)
        seen.push({
          body: m.Body ?? "",
          receiptHandle: m.ReceiptHandle ?? "",
          summary: m.MessageAttributes?.[DEAD_LETTER_SUMMARY_ATTRIBUTE]?.StringValue,
        });
    }
    await Promise.all(
      seen.map((m) =>
        clients.sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: queueUrl,
            ReceiptHandle: m.receiptHandle,
            VisibilityTimeout: 0,
          }),
        ),
      ),
    );
    return seen;
  };

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
    orchestrator,

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
      for (let i = 0; i < (options.count ?? 1); i += 1) {
        const handler = handlerFor(orchestrator(options));
        for (const queueUrl of [queues.ingressQueueUrl, queues.internalQueueUrl]) {
          pollers.push(
            startEventSourcePoller({
              sqs: clients.sqs,
              queueUrl,
              handler,
              batchSize: options.batchSize ?? 10,
              batchingWindowMs: 0,
              maxConcurrency: 1,
              functionTimeoutMs: options.functionTimeoutMs ?? 30_000,
              visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30,
              waitTimeSeconds: 1,
            }),
          );
        }
      }
    },

    async stopWorkers(): Promise<void> {
      await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
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

    async waitFor(predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
      const until = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > until) throw new Error("condition not reached in time");
        await sleep(50);
      }
    },

    async waitForStatus(
      eventId: string,
      status: EventStatus,
      timeoutMs = 20_000,
    ): Promise<EventRecord> {
      const until = Date.now() + timeoutMs;
      let last: EventRecord | undefined;
      while (Date.now() < until) {
        last = await ports.store.get(eventId);
        if (last?.status === status) return last;
        await sleep(100);
      }
      throw new Error(`${eventId} did not reach ${status}; last seen: ${JSON.stringify(last)}`);
    },

    /** Waits until every event is terminal; returns those that are not (none, when nothing is lost). */
    async waitUntilAllTerminal(eventIds: readonly string[], timeoutMs: number): Promise<string[]> {
      const until = Date.now() + timeoutMs;
      let pending = [...eventIds];
      while (pending.length > 0 && Date.now() < until) {
        const records = await Promise.all(pending.map((id) => ports.store.get(id)));
        pending = pending.filter((_, i) => {
          const record = records[i];
          return record === undefined || !isTerminal(record.status);
        });
        if (pending.length > 0) await sleep(250);
      }
      return pending;
    },

    async waitForQueueEmpty(timeoutMs = 20_000): Promise<void> {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        let live = 0;
        for (const queueUrl of [queues.ingressQueueUrl, queues.internalQueueUrl]) {
          const { Attributes = {} } = await clients.sqs.send(
            new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["All"] }),
          );
          live +=
            Number(Attributes.ApproximateNumberOfMessages ?? 0) +
            Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
            Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0);
        }
        if (live === 0) return;
        await sleep(200);
      }
      throw new Error("input queues did not empty");
    },

    /** Every dead-letter copy Ricochet wrote, read without consuming them. */
    async deadLetters(): Promise<DeadLetterMessage[]> {
      const messages = await receiveAll(queues.deadLetterQueueUrl);
      return messages.flatMap((m) => {
        const read = parseDeadLetterCopy(m.body, m.summary);
        return read.ok ? [read.message] : [];
      });
    },

    /**
     * Receives the messages of `eventIds` from both input queues, as a worker would; others are
     * released.
     */
    async receiveIngress(eventIds: readonly string[]): Promise<ReceivedMessage[]> {
      const received: ReceivedMessage[] = [];
      const until = Date.now() + 10_000;
      const queueUrls = [queues.ingressQueueUrl, queues.internalQueueUrl];
      for (let turn = 0; received.length < eventIds.length && Date.now() < until; turn += 1) {
        const queueUrl = queueUrls[turn % 2] ?? queues.ingressQueueUrl;
        const { Messages = [] } = await clients.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            VisibilityTimeout: 30,
            MessageAttributeNames: ["All"],
            MessageSystemAttributeNames: ["ApproximateReceiveCount", "SentTimestamp"],
            WaitTimeSeconds: 1,
          }),
        );
        for (const m of Messages) {
          const body = m.Body ?? "";
          if (!eventIds.some((id) => body.includes(`"eventId":"${id}"`))) {
            await clients.sqs.send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: queueUrl,
                ReceiptHandle: m.ReceiptHandle,
                VisibilityTimeout: 0,
              }),
            );
            continue;
          }
          received.push({
            messageId: m.MessageId ?? "",
            receiptHandle: m.ReceiptHandle ?? "",
            body,
            origin:
              queueUrl === queues.internalQueueUrl
                ? MessageOrigin.RICOCHET
                : MessageOrigin.PRODUCER,
            schedule: scheduleFromAttributes(m.MessageAttributes),
            reservedAttributes: reservedAttributeNames(m.MessageAttributes),
            receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
            sentAtMs: Number(m.Attributes?.SentTimestamp ?? 0),
          });
        }
      }
      return received;
    },

    /** A store with `latencyMs` added before every call: widens every race window. */
    slowStore(latencyMs: number): EventStore {
      const slow =
        <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
        async (...args: A): Promise<R> => {
          await sleep(latencyMs);
          return call(...args);
        };
      const s = ports.store;
      return {
        claim: slow(s.claim),
        recordResult: slow(s.recordResult),
        recordPendingDeadLetter: slow(s.recordPendingDeadLetter),
        recordInvalid: slow(s.recordInvalid),
        recordScheduled: slow(s.recordScheduled),
        recordRedrive: slow(s.recordRedrive),
        recordCancel: slow(s.recordCancel),
        recordReplay: slow(s.recordReplay),
        recordConflict: slow(s.recordConflict),
        appendAudit: slow(s.appendAudit),
        get: slow(s.get),
        listByStatus: slow(s.listByStatus),
      };
    },

    /**
     * A store whose first result write for `eventId` never returns: the worker "dies" after the
     * target call and before recording. `release()` lets the hung call fail so the test can end.
     */
    killAfterFirstSend(eventId: string) {
      let died = false;
      let release: () => void = () => {};
      const hung = new Promise<never>((_, reject) => {
        release = () => reject(new Error("worker killed"));
      });
      hung.catch(() => {});
      const store: EventStore = {
        ...ports.store,
        recordResult: async (request) => {
          if (request.eventId === eventId && !died) {
            died = true;
            return hung;
          }
          return ports.store.recordResult(request);
        },
      };
      return { store, died: () => died, release: () => release() };
    },

    /**
     * A store whose first result write for `eventId` that matches `when` fails (a throttled
     * write, say) after the attempt's effects (a retry sent, a dead-letter copy) were made.
     */
    failFirstResultWrite(eventId: string, when: (request: RecordResultRequest) => boolean) {
      let failed = 0;
      const store: EventStore = {
        ...ports.store,
        recordResult: async (request) => {
          if (request.eventId === eventId && failed === 0 && when(request)) {
            failed += 1;
            throw new StoreUnavailableError("ProvisionedThroughputExceededException (injected)");
          }
          return ports.store.recordResult(request);
        },
      };
      return { store, failures: () => failed };
    },

    /** Runs a redrive over the harness's queues and store, as an operator would. */
    redrive(input: RedriveRequestInput): Promise<RedriveReport> {
      return redrive(
        {
          deadLetterQueue: ports.deadLetters,
          ingressQueue: ports.ingress,
          store: ports.store,
          clock: Date.now,
          sleep,
          defaultPolicy: config.defaultPolicy,
        },
        input,
      );
    },

    /** A dead-letter queue whose first `count` sends fail (an SQS outage, a throttle). */
    failingDeadLetterSends(count: number) {
      let failed = 0;
      const deadLetters: DeadLetterQueue = {
        ...ports.deadLetters,
        send: async (message) => {
          if (failed < count) {
            failed += 1;
            throw new QueueUnavailableError(
              "SendMessage to the dead-letter queue failed (injected)",
            );
          }
          return ports.deadLetters.send(message);
        },
      };
      return { deadLetters, failures: () => failed };
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

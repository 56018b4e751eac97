import { createHash } from "node:crypto";
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from "@aws-sdk/client-sqs";
import { scheduleFromAttributes } from "../../lib/adapters/message-schedule.js";
import { ENV, type RicochetConfig } from "../../lib/config.js";
import type { DeadLetterMessage } from "../../lib/core/dead-letter.js";
import type { Envelope } from "../../lib/core/envelope.js";
import type { PolicyOverride } from "../../lib/core/policy.js";
import type { EventStore, ReceivedMessage } from "../../lib/core/ports.js";
import type { EventRecord } from "../../lib/core/record.js";
import { type EventStatus, isTerminal } from "../../lib/core/status.js";
import { startEventSourcePoller } from "../../lib/local/event-source-poller.js";
import { localConfig } from "../../lib/local/local-config.js";
import { CountingMetrics, silentLog } from "../../lib/observability.js";
import type { Orchestrator } from "../../lib/orchestrator.js";
import { createOrchestratorRuntime, createPorts, type RicochetPorts } from "../../lib/runtime.js";
import { createSqsBatchHandler } from "../../lib/sqs-batch-handler.js";
import { createTestQueues, createTestTable, type TestQueues, testClients } from "./local-aws.js";
import { type Script, ScriptedReceiver, type ScriptedReply } from "./scripted-receiver.js";

/** Lease margin in these tests: short, so takeovers after a "crash" happen within seconds. */
const TEST_LEASE_MARGIN_MS = 1_000;

type Reply = number | ScriptedReply;

export interface WorkerOptions {
  readonly count?: number;
  readonly store?: EventStore;
  readonly batchSize?: number;
  readonly visibilityTimeoutSeconds?: number;
  readonly hopSeconds?: number;
  /** More `RICOCHET_*` variables for the workers' configuration (limits, default policy). */
  readonly env?: NodeJS.ProcessEnv;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Everything an orchestrator integration test needs: a queue pair and a table on the emulators,
 * a scripted receiver, workers driven by the real event-source poller, and ways to look inside.
 */
export const createOrchestratorHarness = async (prefix: string) => {
  const clients = testClients();
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
      },
      log: silentLog,
      metrics,
      leaseMarginMs: TEST_LEASE_MARGIN_MS,
    });
  };

  const handlerFor = (target: Orchestrator) => createSqsBatchHandler(target);

  const receiveAll = async (
    queueUrl: string,
  ): Promise<{ body: string; receiptHandle: string }[]> => {
    const seen: { body: string; receiptHandle: string }[] = [];
    for (;;) {
      const { Messages = [] } = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 20,
        }),
      );
      if (Messages.length === 0) break;
      for (const m of Messages)
        seen.push({ body: m.Body ?? "", receiptHandle: m.ReceiptHandle ?? "" });
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
      target: { timeoutMs?: number } = {},
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

    async startWorkers(options: WorkerOptions = {}): Promise<void> {
      for (let i = 0; i < (options.count ?? 1); i += 1) {
        pollers.push(
          startEventSourcePoller({
            sqs: clients.sqs,
            queueUrl: queues.ingressQueueUrl,
            handler: handlerFor(orchestrator(options)),
            batchSize: options.batchSize ?? 10,
            batchingWindowMs: 0,
            maxConcurrency: 1,
            functionTimeoutMs: 30_000,
            visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30,
            waitTimeSeconds: 1,
          }),
        );
      }
    },

    async stopWorkers(): Promise<void> {
      await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
    },

    async submit(envelopes: readonly Envelope[]): Promise<void> {
      await harness.submitRaw(envelopes.map((e) => JSON.stringify(e)));
    },

    async submitRaw(bodies: readonly string[]): Promise<void> {
      for (let i = 0; i < bodies.length; i += 10) {
        await clients.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queues.ingressQueueUrl,
            Entries: bodies
              .slice(i, i + 10)
              .map((body, j) => ({ Id: String(j), MessageBody: body })),
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
        const { Attributes = {} } = await clients.sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: queues.ingressQueueUrl,
            AttributeNames: ["All"],
          }),
        );
        const live =
          Number(Attributes.ApproximateNumberOfMessages ?? 0) +
          Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
          Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0);
        if (live === 0) return;
        await sleep(200);
      }
      throw new Error("ingress queue did not empty");
    },

    /** Every dead-letter message, read without consuming them. */
    async deadLetters(): Promise<DeadLetterMessage[]> {
      const messages = await receiveAll(queues.deadLetterQueueUrl);
      return messages.map((m) => JSON.parse(m.body) as DeadLetterMessage);
    },

    /** Receives the ingress messages of `eventIds`, as a worker would; others are released. */
    async receiveIngress(eventIds: readonly string[]): Promise<ReceivedMessage[]> {
      const received: ReceivedMessage[] = [];
      const until = Date.now() + 10_000;
      while (received.length < eventIds.length && Date.now() < until) {
        const { Messages = [] } = await clients.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queues.ingressQueueUrl,
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
                QueueUrl: queues.ingressQueueUrl,
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
            schedule: scheduleFromAttributes(m.MessageAttributes),
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
        recordInvalid: slow(s.recordInvalid),
        recordRedrive: slow(s.recordRedrive),
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

    async close(): Promise<void> {
      await harness.stopWorkers();
      await receiver.stop();
    },
  };
  return harness;
};

export type OrchestratorHarness = Awaited<ReturnType<typeof createOrchestratorHarness>>;

import { setTimeout as sleep } from "node:timers/promises";
import { ReceiveMessageCommand, SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import type { SQSRecord } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import { ConfigurationError } from "../../lib/core/errors.js";
import {
  type EventSourcePollerOptions,
  type PollerLogger,
  startEventSourcePoller,
} from "../../lib/local/event-source-poller.js";
import { createFunctionConcurrency } from "../../lib/local/function-concurrency.js";
import { createTestQueues, testClients } from "../support/local-aws.js";

const WAIT = { timeout: 20_000, interval: 50 };

const sendBodies = async (queueUrl: string, bodies: readonly string[]) => {
  await testClients().sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: bodies.map((body, index) => ({
        Id: String(index),
        MessageBody: body,
        MessageAttributes: {
          "ricochet.generation": { DataType: "Number", StringValue: String(index) },
          label: { DataType: "String", StringValue: `label-${body}` },
          raw: { DataType: "Binary", BinaryValue: new Uint8Array([index, 255]) },
        },
      })),
    }),
  );
};

/** What is left on the queue once everything in flight is visible again. */
const drainBodies = async (queueUrl: string): Promise<string[]> => {
  const { Messages } = await testClients().sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 3 }),
  );
  return (Messages ?? []).map((message) => message.Body ?? "").sort();
};

const quietLogger = (): PollerLogger & { messages: string[] } => {
  const messages: string[] = [];
  return { messages, error: (message) => messages.push(message) };
};

const poller = (queueUrl: string, options: Partial<EventSourcePollerOptions>) =>
  startEventSourcePoller({
    sqs: testClients().sqs,
    queueUrl,
    handler: async () => undefined,
    visibilityTimeoutSeconds: 1,
    waitTimeSeconds: 1,
    ...options,
  });

describe("startEventSourcePoller", () => {
  it("deletes the successes only; reported failures come back after the visibility timeout", async () => {
    const { ingressQueueUrl } = await createTestQueues("poller-partial");
    await sendBodies(ingressQueueUrl, ["ok-1", "fail", "ok-2"]);
    const seen: string[] = [];
    const running = poller(ingressQueueUrl, {
      handler: async (event) => {
        seen.push(...event.Records.map((record) => record.body));
        return {
          batchItemFailures: event.Records.filter((record) => record.body === "fail").map(
            (record) => ({ itemIdentifier: record.messageId }),
          ),
        };
      },
    });
    await vi.waitFor(
      () => expect(seen.filter((body) => body === "fail").length).toBeGreaterThan(1),
      WAIT,
    );
    await running.stop();

    expect(seen.filter((body) => body.startsWith("ok")).sort()).toEqual(["ok-1", "ok-2"]);
    expect(running.stats.deletedMessages).toBe(2);
    expect(running.stats.failedRecords).toBeGreaterThanOrEqual(2);
    expect(await drainBodies(ingressQueueUrl)).toEqual(["fail"]);
  });

  it.each([
    ["throws", async () => Promise.reject(new Error("boom")), /handler threw/],
    [
      "answers malformed",
      async () => ({ batchItemFailures: [{ itemIdentifier: "nope" }] }),
      /batch failed/,
    ],
  ])("deletes nothing and logs it when the handler %s", async (_label, handler, logged) => {
    const { ingressQueueUrl } = await createTestQueues("poller-fail");
    await sendBodies(ingressQueueUrl, ["a", "b"]);
    const logger = quietLogger();
    const running = poller(ingressQueueUrl, { handler, logger, maxConcurrency: 1 });
    await vi.waitFor(() => expect(running.stats.failedBatches).toBeGreaterThan(0), WAIT);
    await running.stop();

    expect(running.stats.deletedMessages).toBe(0);
    expect(logger.messages.some((message) => logged.test(message))).toBe(true);
    expect(await drainBodies(ingressQueueUrl)).toEqual(["a", "b"]);
  });

  it("passes message attributes and system attributes in Lambda's record shape", async () => {
    const { ingressQueueUrl, ingressQueueArn } = await createTestQueues("poller-attributes");
    await sendBodies(ingressQueueUrl, ["x"]);
    const records: SQSRecord[] = [];
    const running = poller(ingressQueueUrl, {
      handler: async (event) => {
        records.push(...event.Records);
      },
    });
    await vi.waitFor(() => expect(running.stats.deletedMessages).toBe(1), WAIT);
    await running.stop();

    const [record] = records;
    expect(record?.messageAttributes).toEqual({
      "ricochet.generation": {
        stringValue: "0",
        stringListValues: [],
        binaryListValues: [],
        dataType: "Number",
      },
      label: {
        stringValue: "label-x",
        stringListValues: [],
        binaryListValues: [],
        dataType: "String",
      },
      raw: {
        binaryValue: Buffer.from([0, 255]).toString("base64"),
        stringListValues: [],
        binaryListValues: [],
        dataType: "Binary",
      },
    });
    expect(record).toMatchObject({
      body: "x",
      eventSource: "aws:sqs",
      eventSourceARN: ingressQueueArn,
      awsRegion: "us-east-1",
    });
    expect(Number(record?.attributes.ApproximateReceiveCount)).toBeGreaterThanOrEqual(1);
    expect(Number(record?.attributes.SentTimestamp)).toBeGreaterThan(0);
    expect(Number(record?.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThan(0);
  });

  it("counts the context's remaining time down from the function timeout, and fails a batch that outlives it", async () => {
    const { ingressQueueUrl } = await createTestQueues("poller-timeout");
    await sendBodies(ingressQueueUrl, ["slow"]);
    const remaining: number[] = [];
    const logger = quietLogger();
    const running = poller(ingressQueueUrl, {
      functionTimeoutMs: 300,
      maxConcurrency: 1,
      logger,
      handler: async (_event, context) => {
        remaining.push(context.getRemainingTimeInMillis());
        await sleep(500);
        remaining.push(context.getRemainingTimeInMillis());
      },
    });
    await vi.waitFor(() => expect(running.stats.timedOutBatches).toBeGreaterThan(0), WAIT);
    await running.stop();

    expect(remaining[0]).toBeGreaterThan(0);
    expect(remaining[0]).toBeLessThanOrEqual(300);
    expect(remaining[1]).toBe(0);
    expect(running.stats.deletedMessages).toBe(0);
    expect(await drainBodies(ingressQueueUrl)).toEqual(["slow"]);
  });

  it("finishes the batch in flight before stop() resolves, and polls no more after", async () => {
    const { ingressQueueUrl } = await createTestQueues("poller-stop");
    await sendBodies(ingressQueueUrl, ["in-flight"]);
    let release: () => void = () => undefined;
    let signalStarted: () => void = () => undefined;
    const handlerStarted = new Promise<void>((resolve) => {
      signalStarted = resolve;
    });
    const running = poller(ingressQueueUrl, {
      maxConcurrency: 2,
      handler: async () => {
        signalStarted();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    await handlerStarted;
    let stopped = false;
    const stop = running.stop().then(() => {
      stopped = true;
    });
    // However long this takes, stop() cannot resolve while the handler is held.
    await sleep(100);
    expect(stopped).toBe(false);
    release();
    await stop;
    expect(running.stats.deletedMessages).toBe(1);

    await sendBodies(ingressQueueUrl, ["after-stop"]);
    expect(await drainBodies(ingressQueueUrl)).toEqual(["after-stop"]);
  });

  it("cuts an idle 20-second long poll short on stop() when asked, without reporting a receive error", async () => {
    const { ingressQueueUrl } = await createTestQueues("poller-idle-stop");
    const logger = quietLogger();
    const running = poller(ingressQueueUrl, {
      waitTimeSeconds: 20,
      abortWaitOnStop: true,
      maxConcurrency: 2,
      logger,
    });
    // Let both pollers enter their long poll.
    await sleep(300);
    const stoppingAt = Date.now();
    await running.stop();

    expect(Date.now() - stoppingAt).toBeLessThan(2_000);
    expect(running.stats.receiveErrors).toBe(0);
    expect(logger.messages).toEqual([]);
  });

  it("gathers more than one receive into a batch within the batching window", async () => {
    const { ingressQueueUrl } = await createTestQueues("poller-window");
    const bodies = Array.from({ length: 15 }, (_, index) => `m${index}`);
    await sendBodies(ingressQueueUrl, bodies.slice(0, 10));
    await sendBodies(ingressQueueUrl, bodies.slice(10));
    const batchSizes: number[] = [];
    const running = poller(ingressQueueUrl, {
      batchSize: 20,
      batchingWindowMs: 1_500,
      // Longer than the window, or the first receives reappear within the same batch.
      visibilityTimeoutSeconds: 10,
      maxConcurrency: 1,
      handler: async (event) => {
        batchSizes.push(event.Records.length);
      },
    });
    await vi.waitFor(() => expect(running.stats.deletedMessages).toBe(15), WAIT);
    await running.stop();
    expect(Math.max(...batchSizes)).toBeGreaterThan(10);
  });

  it("shares one function concurrency between two queues' pollers, and bills each invocation's time", async () => {
    const first = await createTestQueues("poller-shared-a");
    const second = await createTestQueues("poller-shared-b");
    await sendBodies(first.ingressQueueUrl, ["a1", "a2", "a3", "a4"]);
    await sendBodies(second.ingressQueueUrl, ["b1", "b2", "b3", "b4"]);
    const functionConcurrency = createFunctionConcurrency(1);
    let running = 0;
    let most = 0;
    const handler = async () => {
      running += 1;
      most = Math.max(most, running);
      await sleep(50);
      running -= 1;
    };
    const shared = {
      batchSize: 1,
      maxConcurrency: 2,
      functionConcurrency,
      handler,
      visibilityTimeoutSeconds: 30,
    };
    const pollers = [poller(first.ingressQueueUrl, shared), poller(second.ingressQueueUrl, shared)];
    await vi.waitFor(
      () => expect(pollers.reduce((sum, p) => sum + p.stats.deletedMessages, 0)).toBe(8),
      WAIT,
    );
    await Promise.all(pollers.map((p) => p.stop()));
    // Four receive loops in all, but never two invocations at once.
    expect(most).toBe(1);
    expect(functionConcurrency.peak).toBe(1);
    for (const p of pollers) {
      // Each handler sleeps 50 ms; a timer may fire a millisecond early by Date.now's clock.
      expect(p.stats.billedDurationMs).toBeGreaterThanOrEqual(p.stats.invocations * 49);
    }
  });

  it.each([
    [{ batchSize: 0 }],
    [{ batchSize: 11 }],
    [{ maxConcurrency: 0 }],
    [{ waitTimeSeconds: 21 }],
    [{ functionTimeoutMs: 0 }],
  ])("refuses options Lambda would refuse: %o", (options) => {
    expect(() => poller("http://127.0.0.1:1/000000000000/q", options)).toThrow(ConfigurationError);
  });
});

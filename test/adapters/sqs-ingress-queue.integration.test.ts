import { SendMessageCommand } from "@aws-sdk/client-sqs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scheduleFromAttributes } from "../../lib/adapters/message-schedule.js";
import { clampDelaySeconds, createSqsIngressQueue } from "../../lib/adapters/sqs-ingress-queue.js";
import { MAX_MESSAGE_BYTES } from "../../lib/core/envelope.js";
import {
  MessageTooLargeError,
  QueueUnavailableError,
  ResourceNotFoundError,
} from "../../lib/core/errors.js";
import { MessageOrigin } from "../../lib/core/ports.js";
import { createTestQueues, type TestQueues, testClients } from "../support/local-aws.js";
import { missingQueueUrl, receiveRaw, recordRequests } from "./sqs-test-support.js";

/** The adapter's two queue URLs, from a created set. */
const urlsOf = ({ ingressQueueUrl, internalQueueUrl }: TestQueues) => ({
  ingressQueueUrl,
  internalQueueUrl,
});

describe("clampDelaySeconds", () => {
  it("always returns a whole number of seconds within 0..min(max, 900)", () => {
    fc.assert(
      fc.property(fc.double(), fc.integer({ min: -10, max: 5000 }), (seconds, max) => {
        const clamped = clampDelaySeconds(seconds, max);
        expect(Number.isInteger(clamped)).toBe(true);
        expect(clamped).toBeGreaterThanOrEqual(0);
        expect(clamped).toBeLessThanOrEqual(Math.max(0, Math.min(900, max)));
      }),
    );
  });

  it("keeps a delay that is already valid", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 900 }), (seconds) => {
        expect(clampDelaySeconds(seconds)).toBe(seconds);
      }),
    );
  });
});

describe("SQS ingress queue", () => {
  let queues: TestQueues;
  const recorder = recordRequests("SendMessage");
  const clients = testClients({ middleware: [recorder.middleware] });

  beforeAll(async () => {
    queues = await createTestQueues("ingress-adapter");
  });
  afterAll(() => clients.destroy());

  it.each([
    { asked: 5_000, sent: 900 },
    { asked: 901, sent: 900 },
    { asked: 900, sent: 900 },
    { asked: 12.7, sent: 12 },
    { asked: -3, sent: 0 },
  ])(
    "sends a delay of $asked s as DelaySeconds $sent (fauxqs would accept more)",
    async ({ asked, sent }) => {
      const queue = createSqsIngressQueue({ sqs: clients.sqs, ...urlsOf(queues) });
      const before = recorder.bodies.length;
      await queue.send("{}", { generation: 0 }, asked);
      expect(recorder.bodies.slice(before).map((b) => b.DelaySeconds)).toEqual([sent]);
    },
  );

  it("caps delays at a lower configured maximum", async () => {
    const queue = createSqsIngressQueue({
      sqs: clients.sqs,
      ...urlsOf(queues),
      maxDelaySeconds: 60,
    });
    const before = recorder.bodies.length;
    await queue.send("{}", { generation: 0 }, 600);
    expect(recorder.bodies.slice(before).map((b) => b.DelaySeconds)).toEqual([60]);
  });

  it("carries the schedule as attributes that read back to the same schedule", async () => {
    const created = await createTestQueues("ingress-roundtrip");
    const queue = createSqsIngressQueue({ sqs: clients.sqs, ...urlsOf(created) });
    const schedule = { generation: 7, notBeforeMs: 1_900_000_000_123 };
    await queue.send('{"eventId":"e-1"}', schedule, 0);
    const [message] = await receiveRaw(clients.sqs, created.internalQueueUrl);
    expect(message?.Body).toBe('{"eventId":"e-1"}');
    expect(scheduleFromAttributes(message?.MessageAttributes)).toEqual(schedule);
  });

  it("refuses a message over 1 MiB, counting the attributes, without sending it", async () => {
    const created = await createTestQueues("ingress-size");
    const queue = createSqsIngressQueue({ sqs: clients.sqs, ...urlsOf(created) });
    // The body alone fits; with the generation attribute it does not.
    const body = "x".repeat(MAX_MESSAGE_BYTES - 10);
    await expect(queue.send(body, { generation: 1 }, 0)).rejects.toBeInstanceOf(
      MessageTooLargeError,
    );
    expect(await receiveRaw(clients.sqs, created.internalQueueUrl, { wait: 0 })).toEqual([]);
  });

  it("sends a message just under the limit", async () => {
    const created = await createTestQueues("ingress-size-ok");
    const queue = createSqsIngressQueue({ sqs: clients.sqs, ...urlsOf(created) });
    const body = "y".repeat(MAX_MESSAGE_BYTES - 100);
    await queue.send(body, { generation: 1 }, 0);
    const [message] = await receiveRaw(clients.sqs, created.internalQueueUrl);
    expect(message?.Body?.length).toBe(body.length);
  });

  it("sends every message on the internal queue, never on the producers' ingress queue", async () => {
    const created = await createTestQueues("ingress-channel");
    const queue = createSqsIngressQueue({ sqs: clients.sqs, ...urlsOf(created) });
    await queue.send('{"eventId":"e-2"}', { generation: 3 }, 0);
    expect(await receiveRaw(clients.sqs, created.ingressQueueUrl, { wait: 0 })).toEqual([]);
    const [message] = await receiveRaw(clients.sqs, created.internalQueueUrl);
    expect(scheduleFromAttributes(message?.MessageAttributes).generation).toBe(3);
  });

  it("changes the visibility of a producer's message on the ingress queue it came from", async () => {
    const created = await createTestQueues("ingress-origin");
    const queue = createSqsIngressQueue({ sqs: clients.sqs, ...urlsOf(created) });
    await clients.sqs.send(
      new SendMessageCommand({ QueueUrl: created.ingressQueueUrl, MessageBody: "{}" }),
    );
    const [first] = await receiveRaw(clients.sqs, created.ingressQueueUrl, { visibility: 300 });
    await queue.changeVisibility(
      { receiptHandle: first?.ReceiptHandle ?? "", origin: MessageOrigin.PRODUCER },
      0,
    );
    const [again] = await receiveRaw(clients.sqs, created.ingressQueueUrl);
    expect(again?.MessageId).toBe(first?.MessageId);
  });

  it("makes a received message visible again with changeVisibility 0", async () => {
    const created = await createTestQueues("ingress-visibility");
    const queue = createSqsIngressQueue({ sqs: clients.sqs, ...urlsOf(created) });
    await queue.send("{}", { generation: 0 }, 0);
    const [first] = await receiveRaw(clients.sqs, created.internalQueueUrl, { visibility: 300 });
    await queue.changeVisibility(
      { receiptHandle: first?.ReceiptHandle ?? "", origin: MessageOrigin.RICOCHET },
      0,
    );
    const [again] = await receiveRaw(clients.sqs, created.internalQueueUrl);
    expect(again?.MessageId).toBe(first?.MessageId);
  });

  it.each([
    ["send", (q: ReturnType<typeof createSqsIngressQueue>) => q.send("{}", { generation: 0 }, 0)],
    [
      "changeVisibility",
      (q: ReturnType<typeof createSqsIngressQueue>) =>
        q.changeVisibility({ receiptHandle: "x", origin: MessageOrigin.RICOCHET }, 0),
    ],
  ])("translates a missing queue on %s into ResourceNotFoundError", async (_name, call) => {
    const queue = createSqsIngressQueue({
      sqs: clients.sqs,
      ingressQueueUrl: missingQueueUrl(queues.ingressQueueUrl),
      internalQueueUrl: missingQueueUrl(queues.internalQueueUrl),
    });
    const error = await call(queue).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as Error).cause).toBeDefined();
  });

  it("translates an unreachable endpoint into a transient QueueUnavailableError", async () => {
    const { SQSClient } = await import("@aws-sdk/client-sqs");
    const sqs = new SQSClient({
      endpoint: "http://127.0.0.1:1",
      region: "us-east-1",
      credentials: { accessKeyId: "x", secretAccessKey: "x" },
      maxAttempts: 1,
    });
    const queue = createSqsIngressQueue({ sqs, ...urlsOf(queues) });
    const error = await queue.send("{}", { generation: 0 }, 0).catch((e: unknown) => e);
    sqs.destroy();
    expect(error).toBeInstanceOf(QueueUnavailableError);
    expect((error as QueueUnavailableError).context.transient).toBe(true);
  });
});

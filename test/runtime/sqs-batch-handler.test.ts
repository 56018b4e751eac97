import type { Context, SQSEvent, SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import type { Orchestrator } from "../../lib/app/orchestrator/orchestrator.js";
import { MessageOrigin, type ReceivedMessage } from "../../lib/core/ports.js";
import { createSqsBatchHandler } from "../../lib/runtime/sqs-batch-handler.js";

/** The handler's options: the internal queue is `internal`; these records come from `ingress`. */
const ON_INTERNAL = { internalQueue: "https://sqs.us-east-1.amazonaws.com/000000000000/internal" };

const record = (messageId: string, generation?: number, queueName = "ingress"): SQSRecord => ({
  messageId,
  receiptHandle: `rh-${messageId}`,
  body: `{"eventId":"${messageId}"}`,
  attributes: {
    ApproximateReceiveCount: "2",
    SentTimestamp: "1700000000000",
    SenderId: "000000000000",
    ApproximateFirstReceiveTimestamp: "1700000000001",
  },
  messageAttributes:
    generation === undefined
      ? {}
      : {
          "ricochet.generation": {
            stringValue: String(generation),
            stringListValues: [],
            binaryListValues: [],
            dataType: "Number",
          },
        },
  md5OfBody: "",
  eventSource: "aws:sqs",
  eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueName}`,
  awsRegion: "us-east-1",
});

const contextWithRemaining = (remaining: () => number): Context =>
  ({ getRemainingTimeInMillis: remaining }) as Context;

/** An orchestrator that keeps the messages `keep` names and remembers what it was given. */
const recordingOrchestrator = (keep: (m: ReceivedMessage) => boolean) => {
  const seen: { messages: readonly ReceivedMessage[]; remaining: number }[] = [];
  const orchestrator: Orchestrator = {
    processMessage: async () => ({ kind: "ack" }),
    processBatch: async (messages, remainingMs) => {
      seen.push({ messages, remaining: remainingMs() });
      return messages.filter(keep).map((m) => m.messageId);
    },
  };
  return { orchestrator, seen };
};

describe("createSqsBatchHandler", () => {
  it.each([
    { name: "none kept", keep: [] as string[], expected: [] as string[] },
    { name: "one kept", keep: ["b"], expected: ["b"] },
    { name: "all kept", keep: ["a", "b", "c"], expected: ["a", "b", "c"] },
  ])(
    "reports exactly the messages the orchestrator keeps as batch item failures ($name)",
    async ({ keep, expected }) => {
      const { orchestrator } = recordingOrchestrator((m) => keep.includes(m.messageId));
      const handler = createSqsBatchHandler(orchestrator, ON_INTERNAL);
      const event: SQSEvent = { Records: [record("a"), record("b"), record("c")] };
      const response = await handler(
        event,
        contextWithRemaining(() => 30_000),
      );
      expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(expected);
    },
  );

  it("hands the orchestrator the records as messages, with their schedule and receive count", async () => {
    const { orchestrator, seen } = recordingOrchestrator(() => false);
    await createSqsBatchHandler(orchestrator, ON_INTERNAL)(
      { Records: [record("a", 3)] },
      contextWithRemaining(() => 1),
    );
    expect(seen[0]?.messages).toEqual([
      {
        messageId: "a",
        receiptHandle: "rh-a",
        body: '{"eventId":"a"}',
        origin: MessageOrigin.PRODUCER,
        schedule: { generation: 3 },
        reservedAttributes: ["ricochet.generation"],
        receiveCount: 2,
        sentAtMs: 1_700_000_000_000,
      },
    ]);
  });

  it.each([
    { queueName: "internal", origin: MessageOrigin.RICOCHET },
    { queueName: "ingress", origin: MessageOrigin.PRODUCER },
    // A name that merely ends like the internal queue's is another queue.
    { queueName: "not-internal", origin: MessageOrigin.PRODUCER },
  ])("marks a record from queue $queueName as $origin", async ({ queueName, origin }) => {
    const { orchestrator, seen } = recordingOrchestrator(() => false);
    await createSqsBatchHandler(orchestrator, ON_INTERNAL)(
      { Records: [record("a", 1, queueName)] },
      contextWithRemaining(() => 1),
    );
    expect(seen[0]?.messages[0]?.origin).toBe(origin);
  });

  it("bounds the batch by the function's remaining time", async () => {
    const { orchestrator, seen } = recordingOrchestrator(() => false);
    await createSqsBatchHandler(orchestrator, ON_INTERNAL)(
      { Records: [record("a")] },
      contextWithRemaining(() => 12_345),
    );
    expect(seen[0]?.remaining).toBe(12_345);
  });

  it("runs afterBatch once per batch, also when the batch throws", async () => {
    let flushed = 0;
    const failing: Orchestrator = {
      processMessage: async () => ({ kind: "ack" }),
      processBatch: async () => {
        throw new Error("store unreachable");
      },
    };
    const { orchestrator } = recordingOrchestrator(() => false);
    const options = {
      ...ON_INTERNAL,
      afterBatch: () => {
        flushed += 1;
      },
    };
    await createSqsBatchHandler(orchestrator, options)(
      { Records: [record("a")] },
      contextWithRemaining(() => 1_000),
    );
    await expect(
      createSqsBatchHandler(failing, options)(
        { Records: [record("a")] },
        contextWithRemaining(() => 1_000),
      ),
    ).rejects.toThrow("store unreachable");
    expect(flushed).toBe(2);
  });
});

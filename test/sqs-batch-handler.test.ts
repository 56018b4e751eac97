import type { Context, SQSEvent, SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import type { ReceivedMessage } from "../lib/core/ports.js";
import type { Orchestrator } from "../lib/orchestrator.js";
import { createSqsBatchHandler } from "../lib/sqs-batch-handler.js";

const record = (messageId: string, generation?: number): SQSRecord => ({
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
  eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:ingress",
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
      const handler = createSqsBatchHandler(orchestrator);
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
    await createSqsBatchHandler(orchestrator)(
      { Records: [record("a", 3)] },
      contextWithRemaining(() => 1),
    );
    expect(seen[0]?.messages).toEqual([
      {
        messageId: "a",
        receiptHandle: "rh-a",
        body: '{"eventId":"a"}',
        schedule: { generation: 3 },
        receiveCount: 2,
        sentAtMs: 1_700_000_000_000,
      },
    ]);
  });

  it("bounds the batch by the function's remaining time", async () => {
    const { orchestrator, seen } = recordingOrchestrator(() => false);
    await createSqsBatchHandler(orchestrator)(
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

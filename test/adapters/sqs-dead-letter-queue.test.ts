import { describe, expect, it } from "vitest";
import {
  createSqsDeadLetterQueue,
  DEAD_LETTER_ATTRIBUTE,
} from "../../lib/adapters/sqs-dead-letter-queue.js";
import { DEAD_LETTER_KIND, type DeadLetterMessage } from "../../lib/core/dead-letter.js";
import { MAX_MESSAGE_BYTES } from "../../lib/core/envelope.js";
import { MessageTooLargeError, ResourceNotFoundError } from "../../lib/core/errors.js";
import { anEnvelope } from "../factories.js";
import { createTestQueues, testClients } from "../support/local-aws.js";
import { missingQueueUrl, receiveRaw } from "./sqs-test-support.js";

const aDeadLetter = (overrides: Partial<DeadLetterMessage> = {}): DeadLetterMessage => {
  const envelope = anEnvelope();
  return {
    kind: DEAD_LETTER_KIND,
    version: 1,
    reason: "exhausted",
    eventId: envelope.eventId,
    envelope,
    attempts: 8,
    generation: 7,
    lastOutcome: { class: "retryable", statusCode: 503, message: "503 Service Unavailable" },
    deadLetteredAt: "2030-01-01T00:00:00.000Z",
    ...overrides,
  };
};

describe("SQS dead-letter queue", () => {
  const { sqs } = testClients();
  const fresh = async () => {
    const { deadLetterQueueUrl } = await createTestQueues("dlq-adapter");
    return {
      queueUrl: deadLetterQueueUrl,
      dlq: createSqsDeadLetterQueue({ sqs, queueUrl: deadLetterQueueUrl }),
    };
  };

  it("sends the message as JSON with reason and event id as attributes", async () => {
    const { queueUrl, dlq } = await fresh();
    const message = aDeadLetter();
    await dlq.send(message);
    const [raw] = await receiveRaw(sqs, queueUrl);
    expect(JSON.parse(raw?.Body ?? "")).toEqual(message);
    expect(raw?.MessageAttributes?.[DEAD_LETTER_ATTRIBUTE.REASON]?.StringValue).toBe("exhausted");
    expect(raw?.MessageAttributes?.[DEAD_LETTER_ATTRIBUTE.EVENT_ID]?.StringValue).toBe(
      message.eventId,
    );
  });

  it("omits the event id attribute when no id could be read", async () => {
    const { queueUrl, dlq } = await fresh();
    await dlq.send(
      aDeadLetter({
        reason: "invalid_envelope",
        eventId: undefined,
        envelope: undefined,
        rawBody: "{",
      }),
    );
    const [raw] = await receiveRaw(sqs, queueUrl);
    expect(Object.keys(raw?.MessageAttributes ?? {})).not.toContain(DEAD_LETTER_ATTRIBUTE.EVENT_ID);
  });

  it("receives with the body, generation, receive count and sent time", async () => {
    const { dlq } = await fresh();
    const before = Date.now();
    await dlq.send(aDeadLetter({ generation: 4 }));
    const after = Date.now();
    const [received] = await dlq.receive({
      maxMessages: 10,
      visibilityTimeoutSeconds: 30,
      waitSeconds: 1,
    });
    expect(received?.schedule.generation).toBe(4);
    expect(received?.receiveCount).toBeGreaterThanOrEqual(1);
    // SentTimestamp has millisecond precision on a clock shared with the emulator; 1 s of slack.
    expect(received?.sentAtMs).toBeGreaterThanOrEqual(before - 1000);
    expect(received?.sentAtMs).toBeLessThanOrEqual(after + 1000);
  });

  it("deletes a message for good and releases one with changeVisibility 0", async () => {
    const { dlq } = await fresh();
    await dlq.send(aDeadLetter());
    await dlq.send(aDeadLetter());
    const receive = () =>
      dlq.receive({ maxMessages: 10, visibilityTimeoutSeconds: 300, waitSeconds: 1 });
    const first = await receive();
    expect(first).toHaveLength(2);
    const [gone, kept] = first;
    await dlq.delete(gone?.receiptHandle ?? "");
    await dlq.changeVisibility(kept?.receiptHandle ?? "", 0);
    const second = await receive();
    expect(second.map((m) => m.messageId)).toEqual([kept?.messageId]);
  });

  it("refuses a dead letter over 1 MiB without sending it", async () => {
    const { queueUrl, dlq } = await fresh();
    const huge = aDeadLetter({ rawBody: "z".repeat(MAX_MESSAGE_BYTES) });
    await expect(dlq.send(huge)).rejects.toBeInstanceOf(MessageTooLargeError);
    expect(await receiveRaw(sqs, queueUrl, { wait: 0 })).toEqual([]);
  });

  it.each(["send", "receive", "delete"] as const)(
    "translates a missing queue on %s into ResourceNotFoundError",
    async (operation) => {
      const { queueUrl } = await fresh();
      const dlq = createSqsDeadLetterQueue({ sqs, queueUrl: missingQueueUrl(queueUrl) });
      const calls = {
        send: () => dlq.send(aDeadLetter()),
        receive: () => dlq.receive({ maxMessages: 1, visibilityTimeoutSeconds: 1, waitSeconds: 0 }),
        delete: () => dlq.delete("handle"),
      };
      await expect(calls[operation]()).rejects.toBeInstanceOf(ResourceNotFoundError);
    },
  );
});

import { describe, expect, it } from "vitest";
import {
  createSqsDeadLetterQueue,
  DEAD_LETTER_SUMMARY_ATTRIBUTE,
} from "../../lib/adapters/sqs-dead-letter-queue.js";
import { readDeadLetter } from "../../lib/app/operator/dead-letter-scan.js";
import type { DeadLetterMessage } from "../../lib/core/dead-letter.js";
import { MAX_MESSAGE_BYTES, utf8Bytes } from "../../lib/core/envelope.js";
import { ResourceNotFoundError } from "../../lib/core/errors.js";
import { aDeadLetterMessage } from "../support/dead-letter-fixture.js";
import { anEnvelope } from "../support/factories.js";
import { createTestQueues, testClients } from "../support/local-aws.js";
import { missingQueueUrl, receiveRaw } from "./sqs-test-support.js";

const aDeadLetter = (overrides: Partial<DeadLetterMessage> = {}): DeadLetterMessage =>
  aDeadLetterMessage(anEnvelope(), {
    lastOutcome: { class: "retryable", statusCode: 503, message: "503 Service Unavailable" },
    ...overrides,
  });

describe("SQS dead-letter queue", () => {
  const { sqs } = testClients();
  const fresh = async () => {
    const { deadLetterQueueUrl } = await createTestQueues("dlq-adapter");
    return {
      queueUrl: deadLetterQueueUrl,
      dlq: createSqsDeadLetterQueue({ sqs, queueUrl: deadLetterQueueUrl }),
    };
  };

  it("sends the producer's body unchanged, with Ricochet's summary as one attribute", async () => {
    const { queueUrl, dlq } = await fresh();
    const body = '{"eventId":"e-1e20","payload":{"n":1e20,"m":-0}}';
    const message = aDeadLetter({ eventId: "e-1e20", body });
    await dlq.send(message);
    const [raw] = await receiveRaw(sqs, queueUrl);
    expect(raw?.Body).toBe(body);
    const summary = JSON.parse(
      raw?.MessageAttributes?.[DEAD_LETTER_SUMMARY_ATTRIBUTE]?.StringValue ?? "",
    );
    const { body: _body, ...expected } = message;
    expect(summary).toEqual(expected);
  });

  it("reads a copy back as the message that was sent", async () => {
    const { dlq } = await fresh();
    const message = aDeadLetter();
    await dlq.send(message);
    const [received] = await dlq.receive({
      maxMessages: 10,
      visibilityTimeoutSeconds: 30,
      waitSeconds: 1,
    });
    const read = received === undefined ? undefined : readDeadLetter(received);
    expect(read).toEqual({ ok: true, message });
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
    expect(received?.summary).toContain('"generation":4');
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

  it("fits a copy of an oversize invalid body by cutting the body and saying so", async () => {
    const { queueUrl, dlq } = await fresh();
    const body = `{"eventId":"big","pad":"${"€".repeat(MAX_MESSAGE_BYTES / 3)}"}`;
    await dlq.send(aDeadLetter({ reason: "invalid_envelope", eventId: "big", body }));
    const [raw] = await receiveRaw(sqs, queueUrl);
    const summary = raw?.MessageAttributes?.[DEAD_LETTER_SUMMARY_ATTRIBUTE]?.StringValue ?? "";
    expect(utf8Bytes(raw?.Body ?? "") + utf8Bytes(summary)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(body.startsWith(raw?.Body ?? "-")).toBe(true);
    expect(JSON.parse(summary).bodyTruncated).toBe(true);
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

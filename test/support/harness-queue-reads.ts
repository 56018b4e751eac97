import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  type Message,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import {
  reservedAttributeNames,
  scheduleFromAttributes,
} from "../../lib/adapters/message-schedule.js";
import { DEAD_LETTER_SUMMARY_ATTRIBUTE } from "../../lib/adapters/sqs-dead-letter-queue.js";
import { parseDeadLetterCopy } from "../../lib/app/operator/dead-letter-scan.js";
import type { DeadLetterMessage } from "../../lib/core/dead-letter.js";
import { MessageOrigin, type ReceivedMessage } from "../../lib/core/ports.js";
import { receiveRaw } from "../adapters/sqs-test-support.js";
import type { TestQueues } from "./local-aws.js";

/*
 * What the orchestrator harness reads off the emulator's queues, straight through the SDK: the
 * dead-letter copies without consuming them, an event's messages as a worker would receive them,
 * and whether the input queues have emptied.
 */

/** Makes a received message visible again at once, for the next reader. */
const release = (sqs: SQSClient, queueUrl: string, message: Message) =>
  sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: message.ReceiptHandle,
      VisibilityTimeout: 0,
    }),
  );

/** Every dead-letter copy Ricochet wrote, read without consuming them. */
export const peekDeadLetters = async (
  sqs: SQSClient,
  queueUrl: string,
): Promise<DeadLetterMessage[]> => {
  const seen: Message[] = [];
  for (;;) {
    const messages = await receiveRaw(sqs, queueUrl, { visibility: 20, wait: 0 });
    if (messages.length === 0) break;
    seen.push(...messages);
  }
  await Promise.all(seen.map((m) => release(sqs, queueUrl, m)));
  return seen.flatMap((m) => {
    const summary = m.MessageAttributes?.[DEAD_LETTER_SUMMARY_ATTRIBUTE]?.StringValue;
    const read = parseDeadLetterCopy(m.Body ?? "", summary);
    return read.ok ? [read.message] : [];
  });
};

const asReceived = (m: Message, origin: MessageOrigin): ReceivedMessage => ({
  messageId: m.MessageId ?? "",
  receiptHandle: m.ReceiptHandle ?? "",
  body: m.Body ?? "",
  origin,
  schedule: scheduleFromAttributes(m.MessageAttributes),
  reservedAttributes: reservedAttributeNames(m.MessageAttributes),
  receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
  sentAtMs: Number(m.Attributes?.SentTimestamp ?? 0),
});

/**
 * Receives the messages of `eventIds` from both input queues, as a worker would (for 10 s at
 * most); others are released.
 */
export const receiveEvents = async (
  sqs: SQSClient,
  queues: TestQueues,
  eventIds: readonly string[],
): Promise<ReceivedMessage[]> => {
  const received: ReceivedMessage[] = [];
  const until = Date.now() + 10_000;
  const queueUrls = [queues.ingressQueueUrl, queues.internalQueueUrl];
  for (let turn = 0; received.length < eventIds.length && Date.now() < until; turn += 1) {
    const queueUrl = queueUrls[turn % 2] ?? queues.ingressQueueUrl;
    const origin =
      queueUrl === queues.internalQueueUrl ? MessageOrigin.RICOCHET : MessageOrigin.PRODUCER;
    for (const m of await receiveRaw(sqs, queueUrl, { visibility: 30, wait: 1 })) {
      const body = m.Body ?? "";
      if (eventIds.some((id) => body.includes(`"eventId":"${id}"`))) {
        received.push(asReceived(m, origin));
      } else {
        await release(sqs, queueUrl, m);
      }
    }
  }
  return received;
};

/** Messages on the input queues: visible, in flight or delayed. */
export const liveInputMessages = async (sqs: SQSClient, queues: TestQueues): Promise<number> => {
  let live = 0;
  for (const queueUrl of [queues.ingressQueueUrl, queues.internalQueueUrl]) {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["All"] }),
    );
    live +=
      Number(Attributes.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
      Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0);
  }
  return live;
};

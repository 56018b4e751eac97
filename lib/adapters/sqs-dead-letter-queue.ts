import {
  DeleteMessageCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import type { DeadLetterMessage } from "../core/dead-letter.js";
import type { DeadLetterQueue, ReceivedMessage } from "../core/ports.js";
import { scheduleFromAttributes, scheduleToAttributes } from "./message-schedule.js";
import { sqsCall } from "./sqs-errors.js";
import { changeMessageVisibility, sendMessage } from "./sqs-message-calls.js";

/**
 * Attributes set beside a dead-letter body so a listing can filter without parsing it. Part of
 * the wire format, like the schedule attributes.
 */
export const DEAD_LETTER_ATTRIBUTE = {
  REASON: "ricochet.reason",
  EVENT_ID: "ricochet.eventId",
} as const;

export interface SqsDeadLetterQueueOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
}

const deadLetterAttributes = (
  message: DeadLetterMessage,
): Record<string, MessageAttributeValue> => {
  const attributes: Record<string, MessageAttributeValue> = {
    ...scheduleToAttributes({ generation: message.generation }),
    [DEAD_LETTER_ATTRIBUTE.REASON]: { DataType: "String", StringValue: message.reason },
  };
  if (message.eventId !== undefined) {
    attributes[DEAD_LETTER_ATTRIBUTE.EVENT_ID] = {
      DataType: "String",
      StringValue: message.eventId,
    };
  }
  return attributes;
};

const wholeOr = (value: string | undefined, fallback: number): number => {
  const parsed = Number(value);
  return value !== undefined && Number.isSafeInteger(parsed) ? parsed : fallback;
};

const toReceived = (message: Message): ReceivedMessage | undefined => {
  // Every message SQS returns has both; one without them cannot be deleted or reported.
  if (message.MessageId === undefined || message.ReceiptHandle === undefined) return undefined;
  return {
    messageId: message.MessageId,
    receiptHandle: message.ReceiptHandle,
    body: message.Body ?? "",
    schedule: scheduleFromAttributes(message.MessageAttributes),
    receiveCount: wholeOr(message.Attributes?.ApproximateReceiveCount, 1),
    sentAtMs: wholeOr(message.Attributes?.SentTimestamp, 0),
  };
};

/** The dead-letter queue over SQS. Bodies are {@link DeadLetterMessage} JSON. */
export const createSqsDeadLetterQueue = ({
  sqs,
  queueUrl,
}: SqsDeadLetterQueueOptions): DeadLetterQueue => ({
  async send(message: DeadLetterMessage): Promise<void> {
    await sendMessage(sqs, queueUrl, {
      body: JSON.stringify(message),
      attributes: deadLetterAttributes(message),
    });
  },

  async receive({ maxMessages, visibilityTimeoutSeconds, waitSeconds }) {
    const output = await sqsCall({ operation: "ReceiveMessage", queueUrl }, () =>
      sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.max(1, Math.min(10, maxMessages)),
          VisibilityTimeout: visibilityTimeoutSeconds,
          WaitTimeSeconds: waitSeconds,
          MessageAttributeNames: ["All"],
          MessageSystemAttributeNames: ["ApproximateReceiveCount", "SentTimestamp"],
        }),
      ),
    );
    return (output.Messages ?? [])
      .map(toReceived)
      .filter((m): m is ReceivedMessage => m !== undefined);
  },

  async delete(receiptHandle: string): Promise<void> {
    await sqsCall({ operation: "DeleteMessage", queueUrl }, () =>
      sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle })),
    );
  },

  changeVisibility: (receiptHandle: string, seconds: number) =>
    changeMessageVisibility(sqs, queueUrl, receiptHandle, seconds),
});

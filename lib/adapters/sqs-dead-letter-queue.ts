import type { Message, MessageAttributeValue, SQSClient } from "@aws-sdk/client-sqs";
import { type DeadLetterMessage, fitDeadLetter } from "../core/dead-letter.js";
import type { DeadLetterQueue, ReceivedDeadLetter } from "../core/ports.js";
import { sqsSdk } from "./aws-sdk-modules.js";
import { scheduleFromAttributes } from "./message-schedule.js";
import { sqsCall } from "./sqs-errors.js";
import { changeMessageVisibility, sendMessage } from "./sqs-message-calls.js";

/**
 * The attribute that carries Ricochet's summary beside the producer's body. Part of the wire
 * format, like the schedule attributes: renaming it makes older copies read as native moves.
 */
export const DEAD_LETTER_SUMMARY_ATTRIBUTE = "ricochet.deadLetter";

export interface SqsDeadLetterQueueOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
}

const wholeOr = (value: string | undefined, fallback: number): number => {
  const parsed = Number(value);
  return value !== undefined && Number.isSafeInteger(parsed) ? parsed : fallback;
};

const toReceived = (message: Message): ReceivedDeadLetter | undefined => {
  // Every message SQS returns has both; one without them cannot be deleted or reported.
  if (message.MessageId === undefined || message.ReceiptHandle === undefined) return undefined;
  return {
    messageId: message.MessageId,
    receiptHandle: message.ReceiptHandle,
    body: message.Body ?? "",
    summary: message.MessageAttributes?.[DEAD_LETTER_SUMMARY_ATTRIBUTE]?.StringValue,
    schedule: scheduleFromAttributes(message.MessageAttributes),
    receiveCount: wholeOr(message.Attributes?.ApproximateReceiveCount, 1),
    sentAtMs: wholeOr(message.Attributes?.SentTimestamp, 0),
  };
};

/**
 * The dead-letter queue over SQS. A copy's body is the producer's body, unchanged; the summary
 * travels as the {@link DEAD_LETTER_SUMMARY_ATTRIBUTE} attribute.
 */
export const createSqsDeadLetterQueue = ({
  sqs,
  queueUrl,
}: SqsDeadLetterQueueOptions): DeadLetterQueue => ({
  async send(message: DeadLetterMessage): Promise<void> {
    const { summary, body } = fitDeadLetter(message);
    const attributes: Record<string, MessageAttributeValue> = {
      [DEAD_LETTER_SUMMARY_ATTRIBUTE]: { DataType: "String", StringValue: JSON.stringify(summary) },
    };
    await sendMessage(sqs, queueUrl, { body, attributes });
  },

  async receive({ maxMessages, visibilityTimeoutSeconds, waitSeconds }) {
    const { ReceiveMessageCommand } = sqsSdk();
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
      .filter((m): m is ReceivedDeadLetter => m !== undefined);
  },

  async delete(receiptHandle: string): Promise<void> {
    const { DeleteMessageCommand } = sqsSdk();
    await sqsCall({ operation: "DeleteMessage", queueUrl }, () =>
      sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle })),
    );
  },

  changeVisibility: (receiptHandle: string, seconds: number) =>
    changeMessageVisibility(sqs, queueUrl, receiptHandle, seconds),
});

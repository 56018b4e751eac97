import type { MessageAttributeValue, SQSClient } from "@aws-sdk/client-sqs";
import { sqsSdk } from "./aws-sdk-modules.js";
import { sqsCall } from "./sqs-errors.js";
import { assertSqsMessageSize } from "./sqs-message-size.js";

/** The SQS calls both queue adapters make, with our size check and error translation. */

/** SendMessage, after checking SQS's 1 MiB limit ourselves (the emulators do not). */
export const sendMessage = async (
  sqs: SQSClient,
  queueUrl: string,
  message: {
    body: string;
    attributes: Record<string, MessageAttributeValue>;
    delaySeconds?: number;
  },
): Promise<void> => {
  assertSqsMessageSize(message.body, message.attributes);
  const { SendMessageCommand } = sqsSdk();
  await sqsCall({ operation: "SendMessage", queueUrl }, () =>
    sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: message.body,
        MessageAttributes: message.attributes,
        DelaySeconds: message.delaySeconds,
      }),
    ),
  );
};

/** ChangeMessageVisibility: hides a received message for `seconds` more (0 shows it at once). */
export const changeMessageVisibility = async (
  sqs: SQSClient,
  queueUrl: string,
  receiptHandle: string,
  seconds: number,
): Promise<void> => {
  const { ChangeMessageVisibilityCommand } = sqsSdk();
  await sqsCall({ operation: "ChangeMessageVisibility", queueUrl }, () =>
    sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    ),
  );
};

import type { Message, MessageAttributeValue } from "@aws-sdk/client-sqs";
import type { SQSMessageAttribute, SQSMessageAttributes, SQSRecord } from "aws-lambda";

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");

/** An attribute in the Lambda event's shape: camel-cased, binary values base64-encoded. */
const toLambdaAttribute = (value: MessageAttributeValue): SQSMessageAttribute => ({
  ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
  ...(value.BinaryValue === undefined ? {} : { binaryValue: base64(value.BinaryValue) }),
  stringListValues: value.StringListValues ?? [],
  binaryListValues: (value.BinaryListValues ?? []).map(base64),
  dataType: value.DataType ?? "String",
});

const toLambdaAttributes = (
  attributes: Record<string, MessageAttributeValue> | undefined,
): SQSMessageAttributes =>
  Object.fromEntries(
    Object.entries(attributes ?? {}).map(([name, value]) => [name, toLambdaAttribute(value)]),
  );

/** The ARN of a queue from its URL (`…/<account>/<name>`), as Lambda names the event source. */
export const queueArnFromUrl = (queueUrl: string, region: string): string => {
  const [account, name] = new URL(queueUrl).pathname.split("/").filter((part) => part !== "");
  if (account === undefined || name === undefined) {
    throw new Error(`not a queue URL: ${queueUrl}`);
  }
  return `arn:aws:sqs:${region}:${account}:${name}`;
};

/**
 * Turns a received SQS message into the record Lambda's event source mapping would deliver.
 * `receivedAtMs` stands in for system attributes an emulator leaves out.
 */
export const toSqsRecord = (
  message: Message,
  source: { readonly queueArn: string; readonly region: string },
  receivedAtMs: number,
): SQSRecord => {
  const system = message.Attributes ?? {};
  const { SentTimestamp, ApproximateReceiveCount, ApproximateFirstReceiveTimestamp, SenderId } =
    system;
  return {
    messageId: message.MessageId ?? "",
    receiptHandle: message.ReceiptHandle ?? "",
    body: message.Body ?? "",
    attributes: {
      ...system,
      ApproximateReceiveCount: ApproximateReceiveCount ?? "1",
      SentTimestamp: SentTimestamp ?? String(receivedAtMs),
      SenderId: SenderId ?? "000000000000",
      ApproximateFirstReceiveTimestamp: ApproximateFirstReceiveTimestamp ?? String(receivedAtMs),
    },
    messageAttributes: toLambdaAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? "",
    ...(message.MD5OfMessageAttributes === undefined
      ? {}
      : { md5OfMessageAttributes: message.MD5OfMessageAttributes }),
    eventSource: "aws:sqs",
    eventSourceARN: source.queueArn,
    awsRegion: source.region,
  };
};

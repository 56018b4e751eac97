import type { MessageAttributeValue } from "@aws-sdk/client-sqs";
import { MAX_MESSAGE_BYTES, utf8Bytes } from "../core/envelope.js";
import { MessageTooLargeError } from "../core/errors.js";

/**
 * The size SQS charges a message: the body plus, for every attribute, its name, data type and
 * value (SQS's documented rule). Only string values are used by Ricochet.
 */
export const sqsMessageBytes = (
  body: string,
  attributes: Record<string, MessageAttributeValue> = {},
): number => {
  let total = utf8Bytes(body);
  for (const [name, value] of Object.entries(attributes)) {
    total += utf8Bytes(name) + utf8Bytes(value.DataType ?? "");
    total += utf8Bytes(value.StringValue ?? "") + (value.BinaryValue?.byteLength ?? 0);
  }
  return total;
};

/**
 * Throws {@link MessageTooLargeError} when SQS would reject the message. The emulators accept
 * oversize messages, so this check is the only thing that keeps local runs honest.
 */
export const assertSqsMessageSize = (
  body: string,
  attributes?: Record<string, MessageAttributeValue>,
): void => {
  const bytes = sqsMessageBytes(body, attributes);
  if (bytes > MAX_MESSAGE_BYTES) throw new MessageTooLargeError(bytes, MAX_MESSAGE_BYTES);
};

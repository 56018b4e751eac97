import { type Message, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { AwsClientMiddleware } from "../../lib/adapters/aws-clients.js";

/** Receives straight from SQS (no adapter), with every attribute, for assertions on the wire. */
export const receiveRaw = async (
  sqs: SQSClient,
  queueUrl: string,
  options: { max?: number; visibility?: number; wait?: number } = {},
): Promise<Message[]> => {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: options.max ?? 10,
      VisibilityTimeout: options.visibility ?? 30,
      WaitTimeSeconds: options.wait ?? 1,
      MessageAttributeNames: ["All"],
      MessageSystemAttributeNames: ["All"],
    }),
  );
  return Messages ?? [];
};

/** Records the JSON body of every SQS request of the given operation, as sent on the wire. */
export const recordRequests = (
  operation: string,
): { middleware: AwsClientMiddleware; bodies: Record<string, unknown>[] } => {
  const bodies: Record<string, unknown>[] = [];
  const middleware: AwsClientMiddleware = {
    name: `record-${operation}`,
    middleware: (next) => async (args) => {
      const request = args.request as { body?: unknown; headers?: Record<string, string> };
      // The JSON protocol names the operation in a header; the body is the request as sent.
      const target = request.headers?.["x-amz-target"];
      const body = request.body;
      if (target === `AmazonSQS.${operation}`) {
        const text =
          typeof body === "string"
            ? body
            : body instanceof Uint8Array
              ? // Decoded from the bytes: the SDK's body is a Uint8Array that warns when treated
                // as a string, and Buffer.from() would call its valueOf().
                new TextDecoder().decode(body)
              : undefined;
        if (text !== undefined) bodies.push(JSON.parse(text) as Record<string, unknown>);
      }
      return next(args);
    },
  };
  return { middleware, bodies };
};

/** The URL of a queue that does not exist, on the same endpoint as `like`. */
export const missingQueueUrl = (like: string): string =>
  like.replace(/[^/]+$/, `missing-${Date.now()}`);

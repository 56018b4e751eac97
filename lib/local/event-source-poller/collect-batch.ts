import { type Message, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { type PollerContext, pause } from "./poller-context.js";
import { MAX_RECEIVE } from "./poller-settings.js";

const receive = async (
  context: PollerContext,
  maxMessages: number,
  waitSeconds: number,
): Promise<Message[]> => {
  const { options, stopping } = context;
  const { Messages } = await context.sqs
    .send(
      new ReceiveMessageCommand({
        QueueUrl: context.queueUrl,
        MaxNumberOfMessages: maxMessages,
        WaitTimeSeconds: waitSeconds,
        MessageAttributeNames: ["All"],
        MessageSystemAttributeNames: ["All"],
        ...(options.visibilityTimeoutSeconds === undefined
          ? {}
          : { VisibilityTimeout: options.visibilityTimeoutSeconds }),
      }),
      options.abortWaitOnStop === true ? { abortSignal: stopping.signal } : {},
    )
    .catch((error: unknown) => {
      // Cut short by stop(): an idle poll, not a failure.
      if (options.abortWaitOnStop === true && stopping.signal.aborted) return { Messages: [] };
      throw error;
    });
  return Messages ?? [];
};

/** One batch: a long poll, then more receives until the batch is full or the window closes. */
export const collectBatch = async (context: PollerContext): Promise<Message[]> => {
  const { settings, stopping } = context;
  const batch = await receive(
    context,
    Math.min(MAX_RECEIVE, settings.batchSize),
    settings.waitTimeSeconds,
  );
  const windowEnd = Date.now() + settings.batchingWindowMs;
  while (batch.length > 0 && batch.length < settings.batchSize && !stopping.signal.aborted) {
    const left = windowEnd - Date.now();
    if (left <= 0) break;
    const more = await receive(
      context,
      Math.min(MAX_RECEIVE, settings.batchSize - batch.length),
      Math.min(settings.waitTimeSeconds, Math.floor(left / 1000)),
    );
    batch.push(...more);
    if (more.length === 0) await pause(context, Math.min(100, left));
  }
  // A message whose visibility ran out inside the window comes twice; only the newer receipt
  // handle still deletes it.
  return [...new Map(batch.map((message) => [message.MessageId, message])).values()];
};

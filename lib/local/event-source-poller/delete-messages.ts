import { DeleteMessageBatchCommand, type Message } from "@aws-sdk/client-sqs";
import type { PollerContext } from "./poller-context.js";
import { MAX_RECEIVE } from "./poller-settings.js";

/** Deletes in batches of ten, counting and logging what SQS refused instead of throwing. */
export const deleteMessages = async (
  context: PollerContext,
  messages: readonly Message[],
): Promise<void> => {
  const { stats, logger, queueUrl } = context;
  for (let start = 0; start < messages.length; start += MAX_RECEIVE) {
    const chunk = messages.slice(start, start + MAX_RECEIVE);
    try {
      const { Failed } = await context.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
      );
      const failed = Failed?.length ?? 0;
      stats.deletedMessages += chunk.length - failed;
      if (failed > 0) {
        stats.deleteErrors += failed;
        logger.error("some deletes failed", { queueUrl, failed: Failed });
      }
    } catch (error) {
      stats.deleteErrors += chunk.length;
      logger.error("delete failed", { queueUrl, error });
    }
  }
};

import type { Message } from "@aws-sdk/client-sqs";
import { type BatchVerdict, readBatchResponse } from "../batch-response.js";
import { deleteMessages } from "./delete-messages.js";
import { invokeWithBatch, TIMED_OUT } from "./invoke-handler.js";
import type { PollerContext } from "./poller-context.js";

/** Invokes under the function's concurrency and reads the answer; undefined when it threw. */
const verdictOf = async (
  context: PollerContext,
  messages: Message[],
  messageIds: readonly string[],
  worker: number,
): Promise<BatchVerdict | undefined> => {
  const { stats, settings, logger, queueUrl } = context;
  try {
    const invocation = () => invokeWithBatch(context, messages, worker);
    const response = await (context.options.functionConcurrency?.run(invocation) ?? invocation());
    if (response === TIMED_OUT) {
      stats.timedOutBatches += 1;
      return { kind: "batch_failed", reason: `timed out after ${settings.functionTimeoutMs} ms` };
    }
    return readBatchResponse(messageIds, response);
  } catch (error) {
    logger.error("handler threw: the whole batch fails", { queueUrl, messageIds, error });
    stats.failedBatches += 1;
    return undefined;
  }
};

/** One received batch through the handler: deletes what succeeded, leaves the rest to reappear. */
export const handleBatch = async (
  context: PollerContext,
  messages: Message[],
  worker: number,
): Promise<void> => {
  const { stats, logger, queueUrl } = context;
  const messageIds = messages.map((message) => message.MessageId ?? "");
  const verdict = await verdictOf(context, messages, messageIds, worker);
  if (verdict === undefined) return;
  if (verdict.kind === "batch_failed") {
    logger.error(`batch failed: ${verdict.reason}`, { queueUrl, messageIds });
    stats.failedBatches += 1;
    return;
  }
  stats.failedRecords += verdict.failed.length;
  const succeeded = new Set(verdict.succeeded);
  await deleteMessages(
    context,
    messages.filter((message) => succeeded.has(message.MessageId ?? "")),
  );
};

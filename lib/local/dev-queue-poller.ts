import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { scheduleFromAttributes } from "../adapters/message-schedule.js";
import type { ReceivedMessage } from "../core/ports.js";
import type { Log } from "../observability.js";
import type { PollerSettings } from "./dev-settings-from-template.js";

/** What the poller feeds: the orchestrator's batch entry point (returns the ids to keep). */
export type BatchProcessor = (
  messages: readonly ReceivedMessage[],
  remainingMs: () => number,
) => Promise<string[]>;

export interface DevQueuePollerOptions extends PollerSettings {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly process: BatchProcessor;
  readonly log: Log;
}

export interface DevQueuePoller {
  /** Stops receiving and waits for the batches in hand to finish. */
  stop(): Promise<void>;
}

/** Long-poll wait of one receive; short, so stop() returns promptly. */
const WAIT_SECONDS = 1;

const toReceived = (message: Message): ReceivedMessage | undefined =>
  message.MessageId === undefined || message.ReceiptHandle === undefined
    ? undefined
    : {
        messageId: message.MessageId,
        receiptHandle: message.ReceiptHandle,
        body: message.Body ?? "",
        schedule: scheduleFromAttributes(message.MessageAttributes),
        receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? "1"),
        sentAtMs: Number(message.Attributes?.SentTimestamp ?? "0"),
      };

/**
 * Drives the orchestrator from the ingress queue as Lambda's event source mapping would: up to
 * `maxConcurrency` concurrent batches of `batchSize`, each given `functionTimeoutMs`, deleting
 * what the batch did not report as failed. Failed messages reappear after the visibility timeout.
 */
export const startDevQueuePoller = (options: DevQueuePollerOptions): DevQueuePoller => {
  const { sqs, queueUrl, log } = options;
  let running = true;
  const worker = async (): Promise<void> => {
    while (running) {
      try {
        const { Messages } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: Math.min(10, options.batchSize),
            WaitTimeSeconds: WAIT_SECONDS,
            MessageSystemAttributeNames: ["All"],
            MessageAttributeNames: ["All"],
          }),
        );
        const batch = (Messages ?? []).flatMap((m) => toReceived(m) ?? []);
        if (batch.length === 0) continue;
        const endsAt = Date.now() + options.functionTimeoutMs;
        const failed = new Set(await options.process(batch, () => endsAt - Date.now()));
        const done = batch.filter((m) => !failed.has(m.messageId));
        if (done.length > 0) {
          await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.receiptHandle })),
            }),
          );
        }
      } catch (error) {
        if (!running) return;
        log.warn("local poller: receive or delete failed", { error: String(error) });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, options.maxConcurrency) }, () => worker());
  return {
    stop: async () => {
      running = false;
      await Promise.allSettled(workers);
    },
  };
};

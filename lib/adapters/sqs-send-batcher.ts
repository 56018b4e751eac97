import type { MessageAttributeValue, SQSClient } from "@aws-sdk/client-sqs";
import { ConfigurationError, QueueUnavailableError } from "../core/errors.js";
import { sqsSdk } from "./aws-sdk-modules.js";
import {
  admitToBatch,
  BatchStep,
  type SendBatchLimits,
  SQS_SEND_BATCH_LIMITS,
} from "./send-batch-plan.js";
import { sqsCall, translateSqsBatchEntryFailure } from "./sqs-errors.js";
import { sendMessage } from "./sqs-message-calls.js";
import { assertSqsMessageSize, sqsMessageBytes } from "./sqs-message-size.js";

/** One message to send, as {@link sendMessage} takes it. */
export interface OutgoingMessage {
  readonly body: string;
  readonly attributes: Record<string, MessageAttributeValue>;
  readonly delaySeconds?: number | undefined;
}

/** Sends messages to one queue; each promise settles with its own message's fate. */
export interface SqsSendBatcher {
  send(message: OutgoingMessage): Promise<void>;
}

export interface SqsSendBatcherOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /**
   * How long the first message of a batch waits for others before the batch is sent. The
   * results of one invocation's attempts come in within a few ms of each other; every message
   * sent this way is late by at most this much.
   */
  readonly windowMs: number;
  readonly limits?: SendBatchLimits;
}

interface Waiting {
  readonly message: OutgoingMessage;
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Gathers the messages sent within `windowMs` of each other into `SendMessageBatch` requests
 * (up to SQS's 10 entries and batch payload), then settles each caller's promise by its own
 * entry's result: a failed entry rejects only its sender, with the error the single
 * `SendMessage` would have raised. A caller that awaits its send before writing anything keeps
 * that order, whoever shares its request.
 */
export const createSqsSendBatcher = ({
  sqs,
  queueUrl,
  windowMs,
  limits = SQS_SEND_BATCH_LIMITS,
}: SqsSendBatcherOptions): SqsSendBatcher => {
  if (!Number.isFinite(windowMs) || windowMs < 0 || limits.maxEntries < 2) {
    throw new ConfigurationError(
      `invalid send batching: windowMs ${windowMs}, maxEntries ${limits.maxEntries}`,
    );
  }
  const call = { operation: "SendMessageBatch", queueUrl };
  let gathered: Waiting[] = [];
  let gatheredBytes = 0;
  let timer: NodeJS.Timeout | undefined;

  const sendBatch = async (batch: readonly Waiting[]): Promise<void> => {
    const { SendMessageBatchCommand } = sqsSdk();
    const output = await sqsCall(call, () =>
      sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map(({ message }, index) => ({
            Id: String(index),
            MessageBody: message.body,
            MessageAttributes: message.attributes,
            DelaySeconds: message.delaySeconds,
          })),
        }),
      ),
    );
    const succeeded = new Set((output.Successful ?? []).map((entry) => entry.Id));
    const failed = new Map((output.Failed ?? []).map((entry) => [entry.Id, entry]));
    batch.forEach((waiting, index) => {
      const id = String(index);
      const failure = failed.get(id);
      if (failure !== undefined) {
        waiting.reject(translateSqsBatchEntryFailure(failure, call));
      } else if (succeeded.has(id)) {
        waiting.resolve();
      } else {
        // Neither listed: SQS did not say the message was taken, so the sender must not assume it.
        waiting.reject(
          new QueueUnavailableError(`SQS SendMessageBatch did not report entry ${id}`, {
            context: { ...call, transient: true },
          }),
        );
      }
    });
  };

  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    const batch = gathered;
    gathered = [];
    gatheredBytes = 0;
    if (batch.length === 0) return;
    const [only] = batch;
    const sent =
      batch.length === 1 && only !== undefined
        ? sendMessage(sqs, queueUrl, only.message).then(only.resolve)
        : sendBatch(batch);
    sent.catch((error: unknown) => {
      for (const waiting of batch) waiting.reject(error);
    });
  };

  return {
    send: (message) =>
      new Promise<void>((resolve, reject) => {
        assertSqsMessageSize(message.body, message.attributes);
        const bytes = sqsMessageBytes(message.body, message.attributes);
        const step = admitToBatch(
          { entries: gathered.length, bytes: gatheredBytes },
          bytes,
          limits,
        );
        if (step === BatchStep.ALONE) {
          sendMessage(sqs, queueUrl, message).then(resolve, reject);
          return;
        }
        if (step === BatchStep.FLUSH_THEN_ADD) flush();
        gathered.push({ message, bytes, resolve, reject });
        gatheredBytes += bytes;
        if (step === BatchStep.ADD_THEN_FLUSH) flush();
        else timer ??= setTimeout(flush, windowMs);
      }),
  };
};

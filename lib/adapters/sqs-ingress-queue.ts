import type { SQSClient } from "@aws-sdk/client-sqs";
import { MAX_SQS_DELAY_SECONDS } from "../contract/aws-limits.js";
import {
  type IngressQueue,
  type MessageHandle,
  MessageOrigin,
  type MessageSchedule,
} from "../core/ports.js";
import { scheduleToAttributes } from "./message-schedule.js";
import { changeMessageVisibility, sendMessage } from "./sqs-message-calls.js";
import { createSqsSendBatcher, type OutgoingMessage } from "./sqs-send-batcher.js";

export interface SqsIngressQueueOptions {
  readonly sqs: SQSClient;
  /** The queue producers send to. */
  readonly ingressQueueUrl: string;
  /** Ricochet's own queue: retries, hops and redrives are sent here, and only here. */
  readonly internalQueueUrl: string;
  /** Longest delay put on one message; capped at SQS's 900 s whatever is asked. */
  readonly maxDelaySeconds?: number;
  /**
   * When set, sends made within this many ms of each other share `SendMessageBatch` requests
   * (one request for an invocation's retries instead of one each); each send still settles by
   * its own message. Absent: one `SendMessage` per send, at once.
   */
  readonly sendWindowMs?: number;
  /**
   * With `sendWindowMs`: how long a send made in a {@link IngressQueue.gatherSends} scope may
   * wait for the scope's other messages (the batcher's default when absent).
   */
  readonly sendGatherMaxMs?: number;
}

/**
 * Clamps a delay to what SQS accepts: whole seconds from 0 to `max` (itself at most 900).
 * Done here because the emulators accept longer delays that real SQS rejects.
 */
export const clampDelaySeconds = (seconds: number, max: number = MAX_SQS_DELAY_SECONDS): number => {
  const ceiling = Math.max(0, Math.min(MAX_SQS_DELAY_SECONDS, Math.floor(max)));
  if (!Number.isFinite(seconds)) return seconds > 0 ? ceiling : 0;
  return Math.max(0, Math.min(ceiling, Math.floor(seconds)));
};

/**
 * The orchestrator's two input queues over SQS: the body is the envelope, the schedule travels
 * as attributes on the internal queue.
 */
export const createSqsIngressQueue = ({
  sqs,
  ingressQueueUrl,
  internalQueueUrl,
  maxDelaySeconds = MAX_SQS_DELAY_SECONDS,
  sendWindowMs,
  sendGatherMaxMs,
}: SqsIngressQueueOptions): IngressQueue => {
  const batcher =
    sendWindowMs === undefined
      ? undefined
      : createSqsSendBatcher({
          sqs,
          queueUrl: internalQueueUrl,
          windowMs: sendWindowMs,
          ...(sendGatherMaxMs === undefined ? {} : { gatherMaxMs: sendGatherMaxMs }),
        });
  const outgoing = (body: string, schedule: MessageSchedule, delaySeconds: number) => ({
    body,
    attributes: scheduleToAttributes(schedule),
    delaySeconds: clampDelaySeconds(delaySeconds, maxDelaySeconds),
  });
  const changeVisibility = (message: MessageHandle, seconds: number) =>
    changeMessageVisibility(
      sqs,
      message.origin === MessageOrigin.RICOCHET ? internalQueueUrl : ingressQueueUrl,
      message.receiptHandle,
      seconds,
    );
  const sendAlone = (message: OutgoingMessage) => sendMessage(sqs, internalQueueUrl, message);
  const sendInternal = batcher?.send ?? sendAlone;
  return {
    send: (body, schedule, delaySeconds) => sendInternal(outgoing(body, schedule, delaySeconds)),
    changeVisibility,
    ...(batcher === undefined
      ? {}
      : {
          gatherSends: () => {
            const scope = batcher.gather();
            return {
              queue: {
                send: (body, schedule, delaySeconds) =>
                  scope.send(outgoing(body, schedule, delaySeconds)),
                changeVisibility,
              },
              begin: scope.begin,
              end: scope.end,
            };
          },
        }),
  };
};

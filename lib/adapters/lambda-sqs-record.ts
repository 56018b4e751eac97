import type { SQSRecord } from "aws-lambda";
import { MessageOrigin, type ReceivedMessage } from "../core/ports.js";
import {
  reservedAttributeNames,
  scheduleFromAttributes,
  traceFromAttributes,
} from "./message-schedule.js";

/** The last part of a queue URL or ARN: the queue's name, unique in its account and region. */
export const queueNameOf = (urlOrArn: string): string => urlOrArn.split(/[/:]/).pop() ?? "";

/**
 * Reads a record of a Lambda SQS event as the orchestrator's message. The function is fed by
 * two queues; a record is Ricochet's own only when it came from the internal queue (named by
 * `internalQueueName`), which producers have no right to send to.
 */
export const fromLambdaRecord = (
  record: SQSRecord,
  internalQueueName: string,
): ReceivedMessage => ({
  messageId: record.messageId,
  receiptHandle: record.receiptHandle,
  body: record.body,
  origin:
    queueNameOf(record.eventSourceARN) === internalQueueName
      ? MessageOrigin.RICOCHET
      : MessageOrigin.PRODUCER,
  schedule: scheduleFromAttributes(record.messageAttributes),
  reservedAttributes: reservedAttributeNames(record.messageAttributes),
  receiveCount: Number(record.attributes.ApproximateReceiveCount ?? "1"),
  sentAtMs: Number(record.attributes.SentTimestamp ?? "0"),
  trace: traceFromAttributes(record.messageAttributes, record.attributes.AWSTraceHeader),
});

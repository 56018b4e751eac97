import type { SQSRecord } from "aws-lambda";
import type { ReceivedMessage } from "../core/ports.js";
import { scheduleFromAttributes } from "./message-schedule.js";

/** Reads a record of a Lambda SQS event as the orchestrator's message. */
export const fromLambdaRecord = (record: SQSRecord): ReceivedMessage => ({
  messageId: record.messageId,
  receiptHandle: record.receiptHandle,
  body: record.body,
  schedule: scheduleFromAttributes(record.messageAttributes),
  receiveCount: Number(record.attributes.ApproximateReceiveCount ?? "1"),
  sentAtMs: Number(record.attributes.SentTimestamp ?? "0"),
});

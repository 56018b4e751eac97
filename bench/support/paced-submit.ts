import { setTimeout as sleep } from "node:timers/promises";
import { SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import type { AwsClients } from "../../lib/adapters/aws-clients.js";
import { benchEnvelope, type RetryShape, SQS_MAX_BATCH_ENTRIES } from "../contender.js";

/** One event to send: its id and the origin of the target it goes to. */
export interface PlannedEvent {
  readonly eventId: string;
  readonly baseUrl: string;
}

const SEND_TICK_MS = 50;

/**
 * Sends `events` at `rate` per second, in batches of at most 10 per tick, and returns each
 * event's send time (ms since epoch). A steady pace, not one burst: the scenarios measure what a
 * contender does with a stream of events, and a burst would measure the queue instead.
 */
export const submitPaced = async (
  clients: AwsClients,
  queueUrl: string,
  events: readonly PlannedEvent[],
  rate: number,
  retry: RetryShape,
): Promise<Map<string, number>> => {
  const submittedAt = new Map<string, number>();
  const startedAt = Date.now();
  let sent = 0;
  while (sent < events.length) {
    const due = Math.min(events.length, Math.floor(((Date.now() - startedAt) / 1000) * rate) + 1);
    for (let start = sent; start < due; start += SQS_MAX_BATCH_ENTRIES) {
      const chunk = events.slice(start, Math.min(due, start + SQS_MAX_BATCH_ENTRIES));
      const at = Date.now();
      await clients.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((event, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify(
              benchEnvelope(event.baseUrl, event.eventId, start + i, retry),
            ),
          })),
        }),
      );
      for (const event of chunk) submittedAt.set(event.eventId, at);
    }
    sent = due;
    if (sent < events.length) await sleep(SEND_TICK_MS);
  }
  return submittedAt;
};

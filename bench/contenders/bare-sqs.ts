import {
  type EventSourcePoller,
  startEventSourcePoller,
} from "../../lib/local/event-source-poller.js";
import { type BenchEnvelope, type Contender, MAX_ATTEMPTS, postEnvelope } from "../contender.js";
import { createQueuePair } from "../support/resources.js";

/** Redelivery delay: a failed message reappears when its visibility timeout ends. */
const VISIBILITY_TIMEOUT_SECONDS = 1;

/**
 * The floor on cost: a consumer with no records at all. It calls the target and leaves failures
 * on the queue, so SQS redelivers them after the visibility timeout and its native redrive
 * dead-letters them after {@link MAX_ATTEMPTS} receives. No backoff, no jitter, no history.
 */
export const bareSqs: Contender = {
  name: "bareSqs",
  prepare: async ({ clients, pollers, batchSize, pollerLogger }) => {
    const queues = await createQueuePair(clients.sqs, "bench-bare", {
      maxReceiveCount: MAX_ATTEMPTS,
      visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
    });
    let poller: EventSourcePoller | undefined;
    return {
      queueUrl: queues.queueUrl,
      start: () => {
        poller = startEventSourcePoller({
          sqs: clients.sqs,
          queueUrl: queues.queueUrl,
          batchSize,
          maxConcurrency: pollers,
          logger: pollerLogger,
          waitTimeSeconds: 1,
          functionName: "bench-bare-sqs",
          handler: async (event) => {
            const results = await Promise.all(
              event.Records.map(async (record) => {
                const ok = await postEnvelope(JSON.parse(record.body) as BenchEnvelope).catch(
                  () => false,
                );
                return ok ? [] : [{ itemIdentifier: record.messageId }];
              }),
            );
            return { batchItemFailures: results.flat() };
          },
        });
      },
      recordsHandled: () => poller?.stats.receivedMessages ?? 0,
      stop: async () => {
        await poller?.stop();
      },
    };
  },
};

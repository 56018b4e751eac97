import {
  type BenchEnvelope,
  type Contender,
  consumeWith,
  createRedeliveryQueues,
  MAX_ATTEMPTS,
  postEnvelope,
} from "../contender.js";

/**
 * The floor on cost: a consumer with no records at all. It calls the target and leaves failures
 * on the queue, so SQS redelivers them after the visibility timeout and its native redrive
 * dead-letters them after {@link MAX_ATTEMPTS} receives. No backoff, no jitter, no history.
 */
export const bareSqs: Contender = {
  name: "bareSqs",
  prepare: async (context) => {
    const queues = await createRedeliveryQueues(context, "bench-bare");
    return consumeWith(context, {
      queueUrls: [queues.queueUrl],
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
};

import {
  type BenchEnvelope,
  type Contender,
  consumeWith,
  createRedeliveryQueues,
  postEnvelope,
  redeliveryDeployment,
  scheduleRedeliveries,
} from "../contender.js";
import { FUNCTION_SIZE } from "./function-size.js";

/**
 * The floor on cost: a consumer with no records at all. It calls the target and leaves failures
 * on the queue, retried on the bench's schedule through `ChangeMessageVisibilityBatch` and
 * dead-lettered by the queue's native redrive after the attempt budget in receives. No history,
 * no idempotency, no protection against overlapping attempts: it does not keep the contract.
 */
export const bareSqs: Contender = {
  name: "bareSqs",
  deployment: (retry) => redeliveryDeployment(retry, FUNCTION_SIZE),
  prepare: async (context) => {
    const queues = await createRedeliveryQueues(context, "bench-bare");
    return consumeWith(context, {
      queueUrls: { in: queues.queueUrl },
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
        const response = { batchItemFailures: results.flat() };
        await scheduleRedeliveries(
          context.clients.sqs,
          queues.queueUrl,
          event.Records,
          response,
          context.retry,
        );
        return response;
      },
    });
  },
};

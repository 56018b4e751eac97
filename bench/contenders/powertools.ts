import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import { IdempotencyConfig, makeIdempotent } from "@aws-lambda-powertools/idempotency";
import { DynamoDBPersistenceLayer } from "@aws-lambda-powertools/idempotency/dynamodb";
import type { SQSRecord } from "aws-lambda";
import {
  type BenchEnvelope,
  type Contender,
  consumeWith,
  createRedeliveryQueues,
  MAX_ATTEMPTS,
  postEnvelope,
} from "../contender.js";
import { createTable } from "../support/resources.js";

/**
 * What an AWS TypeScript team writes today: Powertools' BatchProcessor for partial batch
 * responses, each record made idempotent on its event id with a DynamoDB persistence layer, and
 * retries left to SQS redelivery after the visibility timeout, dead-lettered by the queue's
 * native redrive after {@link MAX_ATTEMPTS} receives.
 */
export const powertools: Contender = {
  name: "powertools",
  prepare: async (context) => {
    const { clients } = context;
    const queues = await createRedeliveryQueues(context, "bench-powertools");
    const tableName = await createTable(clients.dynamodb, "bench-powertools", { key: "id" });
    const persistenceStore = new DynamoDBPersistenceLayer({
      tableName,
      awsSdkV3Client: clients.dynamodb,
    });
    const config = new IdempotencyConfig({ eventKeyJmesPath: "powertools_json(body).eventId" });
    const deliver = makeIdempotent(
      async (record: SQSRecord) => {
        const ok = await postEnvelope(JSON.parse(record.body) as BenchEnvelope);
        // Throwing marks the record failed: it stays on the queue and the idempotency record
        // is deleted, so the redelivery may try again.
        if (!ok) throw new Error("target answered a failure");
        return "delivered";
      },
      { persistenceStore, config },
    );
    return consumeWith(context, {
      queueUrls: [queues.queueUrl],
      functionName: "bench-powertools",
      handler: (event, lambdaContext) => {
        config.registerLambdaContext(lambdaContext);
        // A processor keeps the state of one batch: one per invocation, as one per sandbox.
        const processor = new BatchProcessor(EventType.SQS);
        return processPartialResponse(event, deliver, processor, { context: lambdaContext });
      },
    });
  },
};

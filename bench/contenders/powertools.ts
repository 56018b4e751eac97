import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import { IdempotencyConfig, makeIdempotent } from "@aws-lambda-powertools/idempotency";
import { DynamoDBPersistenceLayer } from "@aws-lambda-powertools/idempotency/dynamodb";
import type { SQSRecord } from "aws-lambda";
import {
  type BenchEnvelope,
  type Contender,
  consumeWith,
  createRedeliveryQueues,
  postEnvelope,
  redeliveryDeployment,
  scheduleRedeliveries,
} from "../contender.js";
import { createTable } from "../support/resources.js";
import { FUNCTION_SIZE } from "./function-size.js";

/** Powertools' default idempotency record lifetime (`expiresAfterSeconds`). */
const IDEMPOTENCY_RECORD_SECONDS = 3_600;

/**
 * What an AWS TypeScript team writes today: Powertools' BatchProcessor for partial batch
 * responses, each record made idempotent on its event id with a DynamoDB persistence layer.
 * Deployed as Lambda allows (visibility timeout six times the function timeout), a failed record
 * is retried on the bench's schedule by setting its visibility to the retry's delay with
 * `ChangeMessageVisibilityBatch`, and dead-lettered by the queue's native redrive after the
 * attempt budget in receives. The idempotency table is the plain one Powertools documents: no
 * point-in-time recovery, records expiring after Powertools' default hour.
 */
export const createPowertoolsContender = (name: string): Contender => ({
  name,
  deployment: (retry) =>
    redeliveryDeployment(retry, {
      ...FUNCTION_SIZE,
      table: { retentionSeconds: IDEMPOTENCY_RECORD_SECONDS, pointInTimeRecovery: false },
    }),
  prepare: async (context) => {
    const { clients } = context;
    const queues = await createRedeliveryQueues(context, "bench-powertools");
    const tableName = await createTable(clients.dynamodb, "bench-powertools", { key: "id" });
    const persistenceStore = new DynamoDBPersistenceLayer({
      tableName,
      awsSdkV3Client: clients.dynamodb,
    });
    const config = new IdempotencyConfig({
      eventKeyJmesPath: "powertools_json(body).eventId",
      expiresAfterSeconds: IDEMPOTENCY_RECORD_SECONDS,
    });
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
    return {
      ...consumeWith(context, {
        queueUrls: { in: queues.queueUrl },
        functionName: name,
        handler: async (event, lambdaContext) => {
          config.registerLambdaContext(lambdaContext);
          // A processor keeps the state of one batch: one per invocation, as one per sandbox.
          const processor = new BatchProcessor(EventType.SQS);
          const response = await processPartialResponse(event, deliver, processor, {
            context: lambdaContext,
            throwOnFullBatchFailure: false,
          });
          await scheduleRedeliveries(
            clients.sqs,
            queues.queueUrl,
            event.Records,
            response,
            context.retry,
          );
          return response;
        },
      }),
      tableName,
    };
  },
});

export const powertools: Contender = createPowertoolsContender("powertools");

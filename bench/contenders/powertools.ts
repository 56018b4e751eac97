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
  type RetryShape,
  redeliveryDeployment,
  scheduleRedeliveries,
} from "../contender.js";
import { createTable } from "../support/resources.js";
import { createSandboxPool } from "../support/sandbox-pool.js";
import { FUNCTION_SIZE } from "./function-size.js";

/** Powertools' default idempotency record lifetime (`expiresAfterSeconds`). */
const IDEMPOTENCY_RECORD_SECONDS = 3_600;

/** How a Powertools function calls the targets: what its module scope keeps for that. */
export interface TargetCaller {
  /** Calls the envelope's target; true when it answered 2xx. */
  call(envelope: BenchEnvelope): Promise<boolean>;
  /**
   * Seconds a failed call's record must stay hidden for a reason of the caller's own (a breaker
   * still open for the target); 0 when the retry schedule alone decides.
   */
  holdSeconds(envelope: BenchEnvelope): number;
  /** Stops what the caller keeps running (timers); called when the round ends. */
  close(): void;
}

/** The plain call: `postEnvelope`, nothing kept. */
const plainCaller = (): TargetCaller => ({
  call: postEnvelope,
  holdSeconds: () => 0,
  close: () => {},
});

export interface PowertoolsOptions {
  /**
   * Makes the caller of one execution environment, once, as module code runs once per
   * environment: what it keeps in memory, each environment keeps for itself. Default: the plain
   * call.
   */
  readonly caller?: (retry: RetryShape) => TargetCaller;
}

const envelopeOf = (record: SQSRecord): BenchEnvelope => JSON.parse(record.body) as BenchEnvelope;

/**
 * What an AWS TypeScript team writes today: Powertools' BatchProcessor for partial batch
 * responses, each record made idempotent on its event id with a DynamoDB persistence layer.
 * Deployed as Lambda allows (visibility timeout six times the function timeout), a failed record
 * is retried on the bench's schedule by setting its visibility to the retry's delay with
 * `ChangeMessageVisibilityBatch`, and dead-lettered by the queue's native redrive after the
 * attempt budget in receives. The idempotency table is the plain one Powertools documents: no
 * point-in-time recovery, records expiring after Powertools' default hour. The handler's module
 * scope (persistence layer, config, idempotent function, `options.caller`) is made once per
 * execution environment ({@link createSandboxPool}), as Lambda runs module code.
 */
export const createPowertoolsContender = (
  name: string,
  options: PowertoolsOptions = {},
): Contender => ({
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
    const makeCaller = options.caller ?? plainCaller;
    const sandboxes = createSandboxPool(() => {
      const caller = makeCaller(context.retry);
      const config = new IdempotencyConfig({
        eventKeyJmesPath: "powertools_json(body).eventId",
        expiresAfterSeconds: IDEMPOTENCY_RECORD_SECONDS,
      });
      const deliver = makeIdempotent(
        async (record: SQSRecord) => {
          const ok = await caller.call(envelopeOf(record));
          // Throwing marks the record failed: it stays on the queue and the idempotency record
          // is deleted, so the redelivery may try again.
          if (!ok) throw new Error("target answered a failure");
          return "delivered";
        },
        {
          persistenceStore: new DynamoDBPersistenceLayer({
            tableName,
            awsSdkV3Client: clients.dynamodb,
          }),
          config,
        },
      );
      return { caller, config, deliver };
    });
    const consumer = consumeWith(context, {
      queueUrls: { in: queues.queueUrl },
      functionName: name,
      handler: (event, lambdaContext) =>
        sandboxes.use(async ({ caller, config, deliver }) => {
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
            (record) => caller.holdSeconds(envelopeOf(record)),
          );
          return response;
        }),
    });
    return {
      ...consumer,
      stop: async () => {
        await consumer.stop();
        for (const { caller } of sandboxes.all()) caller.close();
      },
      tableName,
    };
  },
});

export const powertools: Contender = createPowertoolsContender("powertools");

import type { Context } from "aws-lambda";
import { createAwsClients } from "../lib/adapters/aws-clients.js";
import { createDynamoEventStore } from "../lib/adapters/dynamo-event-store.js";
import { createSqsDeadLetterQueue } from "../lib/adapters/sqs-dead-letter-queue.js";
import { createSqsIngressQueue } from "../lib/adapters/sqs-ingress-queue.js";
import { loadConfig } from "../lib/config.js";
import { systemClock } from "../lib/core/random.js";
import { type RedriveReport, redrive } from "../lib/redrive.js";
import { parseRedriveRequest } from "../lib/redrive-request.js";

/** Time kept back from the function's timeout so the last move and the report finish. */
const SAFETY_MARGIN_MS = 15_000;

// Built once per container; the configuration is read at cold start so a bad deployment fails fast.
const config = loadConfig();
const clients = createAwsClients();

/**
 * The redrive Lambda: invoked directly (console, CLI, automation) with a redrive request, it
 * returns the {@link RedriveReport}. Messages it has no time left for stay in the dead-letter
 * queue and are reported as skipped.
 */
export const handler = async (request: unknown, context: Context): Promise<RedriveReport> => {
  const parsed = parseRedriveRequest(request);
  return redrive(
    {
      deadLetterQueue: createSqsDeadLetterQueue({
        sqs: clients.sqs,
        queueUrl: config.deadLetterQueueUrl,
      }),
      ingressQueue: createSqsIngressQueue({
        sqs: clients.sqs,
        ingressQueueUrl: config.ingressQueueUrl,
        internalQueueUrl: config.internalQueueUrl,
        maxDelaySeconds: config.hopSeconds,
      }),
      store: createDynamoEventStore({ doc: clients.documents, tableName: config.tableName }),
      clock: systemClock,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      defaultPolicy: config.defaultPolicy,
      policyLimits: config.policyLimits,
      shouldStop: () => context.getRemainingTimeInMillis() < SAFETY_MARGIN_MS,
    },
    parsed,
  );
};

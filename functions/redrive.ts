import { setTimeout as sleep } from "node:timers/promises";
import type { Context } from "aws-lambda";
import { createAwsClients } from "../lib/adapters/aws-clients.js";
import { createDynamoEventStore } from "../lib/adapters/dynamo-event-store.js";
import { createSqsDeadLetterQueue } from "../lib/adapters/sqs-dead-letter-queue.js";
import { createSqsIngressQueue } from "../lib/adapters/sqs-ingress-queue.js";
import { createStsCallerIdentity } from "../lib/adapters/sts-caller-identity.js";
import { type OperatorReport, runOperatorRequest } from "../lib/app/operator-function.js";
import { systemClock } from "../lib/core/random.js";
import { CallerSource } from "../lib/core/record.js";
import { loadConfig } from "../lib/runtime/config.js";

/** Time kept back from the function's timeout so the last move and the report finish. */
const SAFETY_MARGIN_MS = 15_000;

// Built once per container; the configuration is read at cold start so a bad deployment fails fast.
const config = loadConfig();
const clients = createAwsClients();
/*
 * The function's own role, as STS reports it: an Invoke carries no trace of its invoker into the
 * event or the context (`context.identity` is Cognito's, `clientContext` the invoker's own
 * words). So `caller` names the role that made the move, labelled as such, and `by` is the
 * invoker's claim; who invoked is in CloudTrail's Lambda data events, under the request id logged.
 */
const callerIdentity = createStsCallerIdentity({
  sts: clients.sts,
  source: CallerSource.FUNCTION_ROLE,
});

/**
 * The redrive (operator) Lambda: invoked directly (console, CLI, operator client) with a request
 * whose `action` is "redrive" (the default), "cancel" or "replay", it returns that action's
 * report. A redrive's messages it has no time left for stay in the dead-letter queue and are
 * reported as skipped. An invalid request fails the invocation with every problem listed.
 */
export const handler = async (request: unknown, context: Context): Promise<OperatorReport> =>
  runOperatorRequest(
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
      sleep: (ms) => sleep(ms),
      defaultPolicy: config.defaultPolicy,
      policyLimits: config.policyLimits,
      shouldStop: () => context.getRemainingTimeInMillis() < SAFETY_MARGIN_MS,
      callerIdentity,
      retentionSeconds: config.recordRetentionDays * 86_400,
    },
    request,
    ({ action, request: { by, dryRun } }) => {
      // One line to join an audit entry (its `at`, `by`) to the CloudTrail record of the Invoke.
      if (!dryRun)
        console.log(JSON.stringify({ message: action, requestId: context.awsRequestId, by }));
    },
  );

import type { Context } from "aws-lambda";
import { createAwsClients } from "../lib/adapters/aws-clients.js";
import { createPowertoolsLog, EmbeddedMetrics } from "../lib/adapters/powertools-observability.js";
import { type OperatorReport, runOperatorRequest } from "../lib/app/operator-function.js";
import { loadConfig } from "../lib/runtime/config.js";
import { operatorFunctionDeps } from "../lib/runtime/operator-function-deps.js";

/** Time kept back from the function's timeout so the last move and the report finish. */
const SAFETY_MARGIN_MS = 15_000;

// Built once per container; the configuration is read at cold start so a bad deployment fails fast.
const metrics = new EmbeddedMetrics();
const depsFor = operatorFunctionDeps(loadConfig(), createAwsClients(), {
  metrics,
  log: createPowertoolsLog(),
});

/**
 * The redrive (operator) Lambda: invoked directly (console, CLI, operator client) with a request
 * whose `action` is "redrive" (the default), "cancel" or "replay", it returns that action's
 * report. A redrive's messages it has no time left for stay in the dead-letter queue and are
 * reported as skipped. An invalid request fails the invocation with every problem listed.
 */
export const handler = async (request: unknown, context: Context): Promise<OperatorReport> => {
  try {
    return await runOperatorRequest(
      depsFor(() => context.getRemainingTimeInMillis() < SAFETY_MARGIN_MS),
      request,
      (accepted) => {
        // One line to join an audit entry (its `at`, `by`) to the CloudTrail record of the
        // Invoke, under the request id logged. The scheduled sweep writes no audit entry.
        if (accepted.action === "sweep-stuck" || accepted.request.dryRun) return;
        const {
          action,
          request: { by },
        } = accepted;
        console.log(JSON.stringify({ message: action, requestId: context.awsRequestId, by }));
      },
    );
  } finally {
    metrics.flush();
  }
};

import type { Context } from "aws-lambda";
import { createAwsClients } from "../lib/adapters/aws-clients.js";
import { createPowertoolsLog, EmbeddedMetrics } from "../lib/adapters/powertools-observability.js";
import { type OperatorReport, runOperatorRequest } from "../lib/app/operator/operator-function.js";
import { loadConfig } from "../lib/runtime/config.js";
import { operatorFunctionDeps } from "../lib/runtime/operator-function-deps.js";
import { loadTracer } from "../lib/runtime/tracing.js";

/** Time kept back from the function's timeout so the last move and the report finish. */
const SAFETY_MARGIN_MS = 15_000;

// Built once per container; the configuration is read at cold start so a bad deployment fails fast.
const config = loadConfig();
const metrics = new EmbeddedMetrics();
const depsFor = operatorFunctionDeps(config, createAwsClients(), {
  metrics,
  log: createPowertoolsLog(),
});
// Off (the default), the OpenTelemetry SDK is never loaded.
const tracer = await loadTracer(config.tracing);

/**
 * The operator Lambda: invoked directly (console, CLI, operator client) with a request
 * whose `action` is "redrive" (the default), "cancel" or "replay", it returns that action's
 * report. A redrive's messages it has no time left for stay in the dead-letter queue and are
 * reported as skipped. An invalid request fails the invocation with every problem listed.
 */
export const handler = async (request: unknown, context: Context): Promise<OperatorReport> => {
  try {
    return await runOperatorRequest(
      { ...depsFor(() => context.getRemainingTimeInMillis() < SAFETY_MARGIN_MS), tracer },
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
    // Before the sandbox freezes, like metrics.
    await tracer?.flush();
  }
};

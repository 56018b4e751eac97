import type { AwsClients } from "../../lib/adapters/aws-clients.js";
import {
  createFunctionConcurrency,
  type FunctionConcurrency,
} from "../../lib/local/function-concurrency.js";
import type { Contender, ContenderContext, PreparedContender, RetryShape } from "../contender.js";
import { assertDeployable } from "./deployment.js";

/** What one run hands a contender: the same for every contender of the run. */
export interface RunContext {
  /** The contender's own clients (counted, where the scenario counts requests). */
  readonly clients: AwsClients;
  readonly plainClients: AwsClients;
  readonly receiver: ContenderContext["receiver"];
  readonly retry: RetryShape;
  /** Invocations at once, or a budget the caller reads back afterwards (its peak). */
  readonly concurrency: number | FunctionConcurrency;
}

/** A contender ready to start, and the batches its pollers have reported failed so far. */
export interface PreparedRun {
  readonly prepared: PreparedContender;
  failedBatches(): number;
}

/**
 * Checks the contender's deployment against AWS's deploy-time rules and prepares it, with its
 * pollers' failed batches counted rather than printed (failures are what the scenarios provoke):
 * every scenario sets a contender up this one way, so none is given a budget the others lack.
 */
export const prepareContender = async (
  contender: Contender,
  context: RunContext,
): Promise<PreparedRun> => {
  const deployment = contender.deployment(context.retry);
  assertDeployable(contender.name, deployment);
  let failedBatches = 0;
  const prepared = await contender.prepare({
    clients: context.clients,
    plainClients: context.plainClients,
    receiver: context.receiver,
    retry: context.retry,
    deployment,
    concurrency:
      typeof context.concurrency === "number"
        ? createFunctionConcurrency(context.concurrency)
        : context.concurrency,
    pollerLogger: {
      error: () => {
        failedBatches += 1;
      },
    },
  });
  return { prepared, failedBatches: () => failedBatches };
};

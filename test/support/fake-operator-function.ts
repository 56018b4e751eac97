import { ENDPOINT_ENV } from "../../lib/adapters/aws-clients.js";
import {
  type OperatorFunctionDeps,
  runOperatorRequest,
} from "../../lib/app/operator/operator-function.js";
import { type FunctionReply, startLoopbackLambda } from "./loopback-lambda.js";

/*
 * The deployed operator function, answered over the Invoke API by the loopback server
 * (./loopback-lambda.ts): by running the real use case its handler runs
 * (lib/app/operator/operator-function.ts) against the emulators, or, per function name, by failing in the
 * ways a function can ("throws", "says-nothing").
 */

export interface Invocation {
  readonly path: string;
  readonly request: Record<string, unknown>;
}

export interface FakeOperatorFunction {
  /** Every invocation received, in order. */
  readonly invocations: Invocation[];
  /** The Lambda endpoint, as the SDK's environment variable for the CLI. */
  readonly env: Record<string, string>;
  readonly endpoint: string;
  close(): Promise<void>;
}

const answer = async (
  deps: OperatorFunctionDeps,
  name: string,
  request: unknown,
): Promise<FunctionReply> => {
  if (name === "throws") {
    return { error: { errorType: "StoreUnavailableError", errorMessage: "table is throttled" } };
  }
  if (name === "says-nothing") return { result: null };
  try {
    return { result: await runOperatorRequest(deps, request) };
  } catch (error) {
    // As the Lambda runtime reports a handler's error.
    const { name: errorType, message: errorMessage } = error as Error;
    return { error: { errorType, errorMessage } };
  }
};

/** Starts the fake function over `deps`; close it after the tests. */
export const startFakeOperatorFunction = async (
  deps: OperatorFunctionDeps,
): Promise<FakeOperatorFunction> => {
  const invocations: Invocation[] = [];
  const server = await startLoopbackLambda(({ functionName, path, event }) => {
    invocations.push({ path, request: event as Record<string, unknown> });
    return answer(deps, functionName, event);
  });
  return {
    invocations,
    endpoint: server.endpoint,
    env: { [ENDPOINT_ENV.LAMBDA]: server.endpoint },
    close: () => server.close(),
  };
};

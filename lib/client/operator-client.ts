import type { LambdaClient } from "@aws-sdk/client-lambda";
import type {
  InvokedOperatorAction,
  OperatorInvocations,
} from "../adapters/lambda-operator-function.js";
import type { CancelReport } from "../app/operator/cancel.js";
import {
  type CancelRequestInput,
  parseCancelRequest,
  parseReplayRequest,
  type ReplayRequestInput,
} from "../app/operator/operator-request.js";
import type { RedriveReport } from "../app/operator/redrive.js";
import { parseRedriveRequest, type RedriveRequestInput } from "../app/operator/redrive-request.js";
import type { ReplayReport } from "../app/operator/replay.js";

/*
 * The operator's client: redrive, cancel and replay through the deployed operator function (stack
 * output `OperatorFunctionName`), so automation needs only permission to invoke it
 * (`grantRedrive`), never the queues or the table. Requests are validated here first, so a
 * mistake costs no invocation. The Lambda SDK is loaded on first use: a producer importing the
 * package never pays for it.
 */

export interface RicochetOperatorClientOptions {
  /** Name or ARN of the deployment's operator function (stack output `OperatorFunctionName`). */
  readonly functionName: string;
  /** A configured Lambda client; when absent one is made from `endpoint` and `region`. */
  readonly lambda?: LambdaClient;
  /** Lambda endpoint override (an emulator, a VPC endpoint). */
  readonly endpoint?: string;
  readonly region?: string;
}

export interface RicochetOperatorClient {
  /**
   * Moves dead-lettered events back (see `ricochet redrive`).
   * @throws InvalidRequestError when the request is invalid (nothing is invoked).
   * @throws OperatorFunctionError when the function could not be invoked, failed, or answered
   * something else than a report.
   */
  redrive(request: RedriveRequestInput): Promise<RedriveReport>;
  /**
   * Cancels events still waiting (pending, scheduled, retry_scheduled); delivered, finished and
   * in-flight ones come back refused with the reason.
   * @throws InvalidRequestError when the request is invalid (nothing is invoked).
   * @throws OperatorFunctionError as for `redrive`.
   */
  cancel(request: Omit<CancelRequestInput, "action">): Promise<CancelReport>;
  /**
   * Sends delivered events again, as a new generation carrying `Ricochet-Replay`, given their
   * envelopes as submitted; the rest come back refused with the reason.
   * @throws InvalidRequestError when the request is invalid (nothing is invoked).
   * @throws OperatorFunctionError as for `redrive`.
   */
  replay(request: Omit<ReplayRequestInput, "action">): Promise<ReplayReport>;
}

/**
 * Creates an operator client for a Ricochet deployment.
 *
 * @example
 * ```ts
 * import { createRicochetOperatorClient } from "ricochet";
 *
 * const operator = createRicochetOperatorClient({ functionName: "Ricochet-OperatorFunction" });
 * const { cancelled, refused } = await operator.cancel({
 *   eventIds: ["order-1042-shipped"],
 *   by: "billing-service",
 *   reason: "order withdrawn",
 * });
 * for (const r of refused) console.warn(r.eventId, r.reason);
 * ```
 */
export const createRicochetOperatorClient = (
  options: RicochetOperatorClientOptions,
): RicochetOperatorClient => {
  let lambda: Promise<LambdaClient> | undefined;
  const lambdaClient = (): Promise<LambdaClient> => {
    lambda ??=
      options.lambda === undefined
        ? import("@aws-sdk/client-lambda").then(
            ({ LambdaClient }) =>
              new LambdaClient({
                ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
                ...(options.region === undefined ? {} : { region: options.region }),
              }),
          )
        : Promise.resolve(options.lambda);
    return lambda;
  };
  const invoke = async <A extends InvokedOperatorAction>(
    action: A,
    request: OperatorInvocations[A]["request"],
  ): Promise<OperatorInvocations[A]["report"]> => {
    const { invokeOperatorFunction } = await import("../adapters/lambda-operator-function.js");
    const lambda = await lambdaClient();
    return invokeOperatorFunction({ lambda, functionName: options.functionName }, action, request);
  };
  return {
    async redrive(request) {
      parseRedriveRequest(request);
      return invoke("redrive", request);
    },
    async cancel(request) {
      parseCancelRequest({ ...request, action: "cancel" });
      return invoke("cancel", request);
    },
    async replay(request) {
      parseReplayRequest({ ...request, action: "replay" });
      return invoke("replay", request);
    },
  };
};

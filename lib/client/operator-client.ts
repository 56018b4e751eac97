import type { LambdaClient } from "@aws-sdk/client-lambda";
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
 * The operator's client: redrive, cancel and replay through the deployed redrive function (stack
 * output `RedriveFunctionName`), so automation needs only permission to invoke it
 * (`grantRedrive`), never the queues or the table. Requests are validated here first, so a
 * mistake costs no invocation. The Lambda SDK is loaded on first use: a producer importing the
 * package never pays for it.
 */

export interface RicochetOperatorClientOptions {
  /** Name or ARN of the deployment's redrive function (stack output `RedriveFunctionName`). */
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
   * @throws RedriveFunctionError when the function could not be invoked, failed, or answered
   * something else than a report.
   */
  redrive(request: RedriveRequestInput): Promise<RedriveReport>;
  /**
   * Cancels events still waiting (pending, scheduled, retry_scheduled); delivered, finished and
   * in-flight ones come back refused with the reason.
   * @throws InvalidRequestError when the request is invalid (nothing is invoked).
   * @throws RedriveFunctionError as for `redrive`.
   */
  cancel(request: Omit<CancelRequestInput, "action">): Promise<CancelReport>;
  /**
   * Sends delivered events again, as a new generation carrying `Ricochet-Replay`, given their
   * envelopes as submitted; the rest come back refused with the reason.
   * @throws InvalidRequestError when the request is invalid (nothing is invoked).
   * @throws RedriveFunctionError as for `redrive`.
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
 * const operator = createRicochetOperatorClient({ functionName: "Ricochet-RedriveFunction" });
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
  const target = async () => ({
    lambda: await lambdaClient(),
    functionName: options.functionName,
    invoke: await import("../adapters/redrive-function.js"),
  });
  return {
    async redrive(request) {
      parseRedriveRequest(request);
      const { invoke, ...function_ } = await target();
      return invoke.invokeRedriveFunction(function_, request);
    },
    async cancel(request) {
      parseCancelRequest({ ...request, action: "cancel" });
      const { invoke, ...function_ } = await target();
      return invoke.invokeCancelFunction(function_, request);
    },
    async replay(request) {
      parseReplayRequest({ ...request, action: "replay" });
      const { invoke, ...function_ } = await target();
      return invoke.invokeReplayFunction(function_, request);
    },
  };
};

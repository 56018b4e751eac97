import { ENDPOINT_ENV, resolveEndpoint } from "../adapters/aws-clients.js";
import { LOCAL_REGION } from "../contract/local-identity.js";
import type { RunningEmulator } from "./running-emulator.js";
import { startDynamoDbLocal } from "./start-dynamodb-local.js";
import { startFauxqs } from "./start-fauxqs.js";

/** Local AWS for tests and local runs: emulators this process started, or a running LocalStack. */
export interface LocalAws {
  readonly endpoints: { readonly sqs: string; readonly dynamodb: string };
  readonly region: string;
  /** Stops what was started (nothing, for LocalStack) and waits for every process to exit. */
  stop(): Promise<void>;
  /** False when every endpoint came from AWS_ENDPOINT_URL*: nothing was started. */
  readonly startedEmulators: boolean;
  /** Processes started (emulators and their watchdogs), so tests can check none is left. */
  readonly pids: readonly number[];
}

export interface StartLocalAwsOptions {
  /** Where AWS_ENDPOINT_URL* and AWS_REGION are read from; `process.env` by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** How long each emulator may take to answer; Java on a busy machine is the slow one. */
  readonly readyTimeoutMs?: number;
}

type Service = "sqs" | "dynamodb";

const starters: Record<
  Service,
  (region: string, readyTimeoutMs: number) => Promise<RunningEmulator>
> = {
  sqs: (region, readyTimeoutMs) => startFauxqs({ region, readyTimeoutMs }),
  dynamodb: (region, readyTimeoutMs) => startDynamoDbLocal({ region, readyTimeoutMs }),
};

/**
 * Starts fauxqs and DynamoDB Local on free loopback ports and waits until both answer. A service
 * whose endpoint is configured (`AWS_ENDPOINT_URL_SQS` / `_DYNAMODB`, or `AWS_ENDPOINT_URL` for
 * both, e.g. a LocalStack at http://localhost:4566) is used as is and nothing is started for it.
 * If either emulator fails, the other is stopped before the error is thrown.
 */
export const startLocalAws = async (options: StartLocalAwsOptions = {}): Promise<LocalAws> => {
  const env = options.env ?? process.env;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const configured: Record<Service, string | undefined> = {
    sqs: resolveEndpoint(undefined, ENDPOINT_ENV.SQS, env),
    dynamodb: resolveEndpoint(undefined, ENDPOINT_ENV.DYNAMODB, env),
  };
  // Against LocalStack the caller's region stands; our emulators get the fixed local one.
  const region =
    configured.sqs !== undefined && configured.dynamodb !== undefined
      ? (env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? LOCAL_REGION)
      : LOCAL_REGION;

  const services: Service[] = ["sqs", "dynamodb"];
  const settled = await Promise.allSettled(
    services.map(async (service) => {
      const endpoint = configured[service];
      return endpoint === undefined ? starters[service](region, readyTimeoutMs) : endpoint;
    }),
  );
  const started = settled.flatMap((result) =>
    result.status === "fulfilled" && typeof result.value !== "string" ? [result.value] : [],
  );
  const stopAll = async () => {
    await Promise.all(started.map((emulator) => emulator.stop()));
  };
  const failed = settled.find((result) => result.status === "rejected");
  if (failed !== undefined) {
    await stopAll();
    throw failed.reason;
  }
  const endpointOf = (index: number): string => {
    const result = settled[index];
    if (result?.status !== "fulfilled") throw new Error("unreachable: failures handled above");
    return typeof result.value === "string" ? result.value : result.value.endpoint;
  };

  let stopping: Promise<void> | undefined;
  return {
    endpoints: { sqs: endpointOf(0), dynamodb: endpointOf(1) },
    region,
    startedEmulators: started.length > 0,
    pids: started.flatMap((emulator) => emulator.pids),
    stop: () => {
      stopping ??= stopAll();
      return stopping;
    },
  };
};

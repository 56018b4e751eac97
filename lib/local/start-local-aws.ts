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

/** The services local runs need, each started as an emulator unless an endpoint is configured. */
export const LOCAL_SERVICES = ["sqs", "dynamodb"] as const;
type Service = (typeof LOCAL_SERVICES)[number];

/** Each service's name, for a person. */
export const SERVICE_NAME: Readonly<Record<Service, string>> = { sqs: "SQS", dynamodb: "DynamoDB" };

/** The emulator that stands in for each service, for a person. */
export const EMULATOR_NAME: Readonly<Record<Service, string>> = {
  sqs: "fauxqs (SQS)",
  dynamodb: "DynamoDB Local",
};

/** Each service's endpoint from AWS_ENDPOINT_URL*, if one is configured; else one is started. */
export const configuredEndpoints = (
  env: NodeJS.ProcessEnv = process.env,
): Record<Service, string | undefined> => ({
  sqs: resolveEndpoint(undefined, ENDPOINT_ENV.SQS, env),
  dynamodb: resolveEndpoint(undefined, ENDPOINT_ENV.DYNAMODB, env),
});

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
  const configured = configuredEndpoints(env);
  // Against LocalStack the caller's region stands; our emulators get the fixed local one.
  const region =
    configured.sqs !== undefined && configured.dynamodb !== undefined
      ? (env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? LOCAL_REGION)
      : LOCAL_REGION;

  const settled = await Promise.allSettled(
    LOCAL_SERVICES.map(async (service) => {
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

import type { CloudFormationClient } from "@aws-sdk/client-cloudformation";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { LambdaClient } from "@aws-sdk/client-lambda";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { STSClient } from "@aws-sdk/client-sts";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  FinalizeHandler,
  HandlerExecutionContext,
} from "@smithy/types";
import { LOCAL_CREDENTIALS } from "../contract/local-identity.js";
import { dynamoDbDocumentSdk, dynamoDbSdk, sqsSdk } from "./aws-sdk-modules.js";

/** Explicit endpoints, one per service; a missing one falls back to the standard configuration. */
export interface AwsEndpoints {
  readonly sqs?: string | undefined;
  readonly dynamodb?: string | undefined;
  readonly lambda?: string | undefined;
  readonly cloudformation?: string | undefined;
  readonly sts?: string | undefined;
}

/**
 * Extra SDK middleware applied to every client, e.g. a request counter for benchmarks or a fault
 * injector for chaos tests. It sits in the `finalizeRequest` step inside the SDK's retry loop, so
 * it sees every HTTP attempt, retries included; `context.clientName` and `context.commandName`
 * say which call it is. It is generic so that one middleware fits every client's types, and the
 * document client (which shares the DynamoDB client's stack) runs it too.
 */
export interface AwsClientMiddleware {
  readonly name: string;
  readonly middleware: <Input extends object, Output extends object>(
    next: FinalizeHandler<Input, Output>,
    context: HandlerExecutionContext,
  ) => FinalizeHandler<Input, Output>;
}

export interface AwsClientsOptions {
  readonly endpoints?: AwsEndpoints | undefined;
  /** Defaults to the standard chain (AWS_REGION, profile…). */
  readonly region?: string | undefined;
  /** Defaults to the standard chain (env, profile, container, instance). */
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider | undefined;
  readonly middleware?: readonly AwsClientMiddleware[] | undefined;
  /** Where AWS_ENDPOINT_URL* are read from; `process.env` by default. */
  readonly env?: NodeJS.ProcessEnv | undefined;
}

/**
 * The SDK clients Ricochet uses, built once and shared. The SQS and DynamoDB clients every process
 * needs are built at once; the Lambda and CloudFormation clients are loaded on first use, because
 * loading an SDK client package costs a cold start tens of milliseconds and most processes never
 * call them (the orchestrator needs Lambda only for Lambda targets, CloudFormation only the CLI).
 */
export interface AwsClients {
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  /** Marshals plain objects; `undefined` attributes are dropped rather than rejected. */
  readonly documents: DynamoDBDocumentClient;
  /**
   * The Lambda client, loaded and built on the first call, with `maxAttempts: 1`: an SDK retry
   * must never call a delivery target a second time.
   */
  lambda(): Promise<LambdaClient>;
  /** The CloudFormation client, loaded and built on the first call. */
  cloudformation(): Promise<CloudFormationClient>;
  /**
   * The STS client (who the caller is, for audit entries), loaded and built on the first call;
   * undefined when there is no STS to ask: see {@link stsEndpointOf}.
   */
  sts(): Promise<STSClient | undefined>;
  /** Closes the clients' connection pools (lets a short-lived process exit promptly). */
  destroy(): void;
}

/** The env var names the SDK and Ricochet read for per-service endpoints. */
export const ENDPOINT_ENV = {
  ALL: "AWS_ENDPOINT_URL",
  SQS: "AWS_ENDPOINT_URL_SQS",
  DYNAMODB: "AWS_ENDPOINT_URL_DYNAMODB",
  LAMBDA: "AWS_ENDPOINT_URL_LAMBDA",
  CLOUDFORMATION: "AWS_ENDPOINT_URL_CLOUDFORMATION",
  STS: "AWS_ENDPOINT_URL_STS",
} as const;

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim();

/**
 * The endpoint a service should use: the explicit one, else its `AWS_ENDPOINT_URL_<SERVICE>`,
 * else `AWS_ENDPOINT_URL`, else none (the SDK's regional default).
 */
export const resolveEndpoint = (
  explicit: string | undefined,
  serviceVariable: string,
  env: NodeJS.ProcessEnv,
): string | undefined =>
  nonEmpty(explicit) ?? nonEmpty(env[serviceVariable]) ?? nonEmpty(env[ENDPOINT_ENV.ALL]);

/**
 * Where STS is: its own endpoint or the shared one, the same override the other clients follow
 * (a LocalStack answers GetCallerIdentity), else AWS's (`undefined`). `null` when SQS or DynamoDB
 * is redirected (the local emulators) and STS is not: fauxqs and DynamoDB Local have no STS, and
 * AWS's answer would name an identity that has no say over the emulators' data, so nothing is
 * asked, and nothing waits on a network call that cannot succeed.
 */
export const stsEndpointOf = (
  endpoints: AwsEndpoints | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined | null => {
  const endpoint = resolveEndpoint(endpoints?.sts, ENDPOINT_ENV.STS, env);
  if (endpoint !== undefined) return endpoint;
  return redirectsQueuesOrTable(endpoints, env) ? null : undefined;
};

/** Whether SQS or DynamoDB is sent elsewhere than AWS: the local emulators or a LocalStack. */
const redirectsQueuesOrTable = (endpoints: AwsEndpoints | undefined, env: NodeJS.ProcessEnv) =>
  resolveEndpoint(endpoints?.sqs, ENDPOINT_ENV.SQS, env) !== undefined ||
  resolveEndpoint(endpoints?.dynamodb, ENDPOINT_ENV.DYNAMODB, env) !== undefined;

/**
 * Whether there is no Lambda to call: SQS or DynamoDB is redirected (`npm start`'s emulators)
 * and Lambda is not. The emulators run no functions, and AWS's Lambda, reached with their dummy
 * credentials, could only fail (with a DNS or signature error that says nothing of why).
 */
export const lacksLambda = (env: NodeJS.ProcessEnv): boolean =>
  resolveEndpoint(undefined, ENDPOINT_ENV.LAMBDA, env) === undefined &&
  redirectsQueuesOrTable(undefined, env);

/**
 * Builds the SDK clients from the standard AWS configuration, with optional explicit endpoints.
 * The SQS client must get an explicit endpoint against fauxqs: its queue URLs name
 * `sqs.<region>.localhost`, which does not resolve, and the SDK sends to the configured endpoint
 * whatever host the queue URL names. Retries keep the SDK defaults.
 */
export const createAwsClients = (options: AwsClientsOptions = {}): AwsClients => {
  const env = options.env ?? process.env;
  const common = {
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
  };
  const endpointFor = (explicit: string | undefined, variable: string) => {
    const endpoint = resolveEndpoint(explicit, variable, env);
    return endpoint === undefined ? {} : { endpoint };
  };
  const withMiddleware = <Client extends MiddlewareHost>(client: Client): Client => {
    for (const { name, middleware } of options.middleware ?? []) {
      client.middlewareStack.add(middleware, { step: "finalizeRequest", name });
    }
    return client;
  };
  const { SQSClient } = sqsSdk();
  const { DynamoDBClient } = dynamoDbSdk();
  const { DynamoDBDocumentClient } = dynamoDbDocumentSdk();
  const sqs = withMiddleware(
    new SQSClient({ ...common, ...endpointFor(options.endpoints?.sqs, ENDPOINT_ENV.SQS) }),
  );
  const dynamodb = withMiddleware(
    new DynamoDBClient({
      ...common,
      ...endpointFor(options.endpoints?.dynamodb, ENDPOINT_ENV.DYNAMODB),
    }),
  );
  const documents = DynamoDBDocumentClient.from(dynamodb, {
    marshallOptions: { removeUndefinedValues: true },
  });
  const lambda = loadOnFirstUse(async () => {
    const { LambdaClient } = await import("@aws-sdk/client-lambda");
    return withMiddleware(
      new LambdaClient({
        ...common,
        ...endpointFor(options.endpoints?.lambda, ENDPOINT_ENV.LAMBDA),
        // The client invokes delivery targets: an SDK retry after a 5xx or a reset could run the
        // target twice inside one attempt, outside the lease and the record. Ricochet's own
        // retry policy is the only one that may call a target again.
        maxAttempts: 1,
      }),
    );
  });
  const cloudformation = loadOnFirstUse(async () => {
    const { CloudFormationClient } = await import("@aws-sdk/client-cloudformation");
    return withMiddleware(
      new CloudFormationClient({
        ...common,
        ...endpointFor(options.endpoints?.cloudformation, ENDPOINT_ENV.CLOUDFORMATION),
      }),
    );
  });
  const stsEndpoint = stsEndpointOf(options.endpoints, env);
  const sts = loadOnFirstUse(async () => {
    const { STSClient } = await import("@aws-sdk/client-sts");
    return withMiddleware(
      new STSClient({ ...common, ...(stsEndpoint ? { endpoint: stsEndpoint } : {}) }),
    );
  });
  return {
    sqs,
    dynamodb,
    documents,
    lambda: lambda.get,
    cloudformation: cloudformation.get,
    sts: async () => (stsEndpoint === null ? undefined : sts.get()),
    destroy: () => {
      sqs.destroy();
      dynamodb.destroy();
      lambda.destroy();
      cloudformation.destroy();
      sts.destroy();
    },
  };
};

/** What {@link createAwsClients} needs of a client to add the caller's middleware. */
interface MiddlewareHost {
  readonly middlewareStack: {
    add(
      middleware: AwsClientMiddleware["middleware"],
      options: { readonly step: "finalizeRequest"; readonly name: string },
    ): void;
  };
}

/** One client built on the first `get`, shared by every later caller. */
const loadOnFirstUse = <Client extends { destroy(): void }>(load: () => Promise<Client>) => {
  let loading: Promise<Client> | undefined;
  let built: Client | undefined;
  return {
    get: (): Promise<Client> => {
      loading ??= load().then(
        (client) => {
          built = client;
          return client;
        },
        (error: unknown) => {
          // Let the next caller try again rather than fail forever on one bad load.
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
    destroy: (): void => built?.destroy(),
  };
};

/** What a process needs to know to reach the same local AWS as this one. */
export interface LocalAwsTarget {
  readonly endpoints: { readonly sqs: string; readonly dynamodb: string };
  readonly region: string;
}

/**
 * The environment variables a child process needs to talk to the same emulators (or LocalStack)
 * with the same dummy identity, so DynamoDB Local and fauxqs see one set of data. The region is
 * given twice: the JavaScript SDK reads `AWS_REGION`, the Python `aws` CLI and boto3 read
 * `AWS_DEFAULT_REGION`.
 */
export const localAwsEnv = (local: LocalAwsTarget): Record<string, string> => ({
  [ENDPOINT_ENV.SQS]: local.endpoints.sqs,
  [ENDPOINT_ENV.DYNAMODB]: local.endpoints.dynamodb,
  AWS_REGION: local.region,
  AWS_DEFAULT_REGION: local.region,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
});

import { ENV } from "../contract/environment.js";
import { ConfigurationError } from "../core/errors.js";
import {
  type ProvisionedResources,
  referencedLogicalId,
  resolveLocalReference,
} from "./provision-from-template.js";
import type { CfnResource, CfnTemplate } from "./synthesize-template.js";

const EVENT_SOURCE_MAPPING = "AWS::Lambda::EventSourceMapping";
const FUNCTION = "AWS::Lambda::Function";

/** How the local poller drives the orchestrator: the event source mapping's and function's settings. */
interface PollerSettings {
  readonly batchSize: number;
  readonly batchingWindowMs: number;
  readonly maxConcurrency: number;
  readonly functionTimeoutMs: number;
}

/** The orchestrator as deployed, translated to local resources. */
export interface DevSettings {
  /** The orchestrator function's environment, references replaced by local names and URLs. */
  readonly env: Readonly<Record<string, string>>;
  readonly poller: PollerSettings;
  /** Logical id of the function the ingress queue's event source mapping invokes. */
  readonly functionLogicalId: string;
}

/* Lambda's defaults when the mapping leaves a setting out. */
const DEFAULT_BATCH_SIZE = 10;
const DEFAULT_MAX_CONCURRENCY = 1000;
const DEFAULT_TIMEOUT_SECONDS = 3;

/** The deployment's account and operator function: no local counterpart, so left unset locally. */
const DEPLOYMENT_ONLY: ReadonlySet<string> = new Set([ENV.ACCOUNT_ID, ENV.OPERATOR_FUNCTION_NAME]);

const numberOr = (value: unknown, fallback: number): number =>
  typeof value === "number" && Number.isFinite(value) ? value : fallback;

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A template function's `Environment.Variables` with every reference replaced by the local
 * resource's name or URL. The deployment-only references (account, operator function), which
 * have no local counterpart, are left out.
 * @throws ConfigurationError for any other reference to something that was not provisioned.
 */
export const localFunctionEnvironment = (
  fn: CfnResource,
  local: ProvisionedResources,
): Record<string, string> => {
  const props = fn.Properties ?? {};
  const environment = isRecord(props.Environment) ? props.Environment.Variables : undefined;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(isRecord(environment) ? environment : {})) {
    if (DEPLOYMENT_ONLY.has(name) && typeof value !== "string") continue;
    env[name] = resolveLocalReference(value, local);
  }
  return env;
};

/**
 * Reads the orchestrator's configuration from the template: the function fed by the SQS event
 * source mapping, its `Environment.Variables` and `Timeout`, and the mapping's batch size,
 * batching window and maximum concurrency.
 * @throws ConfigurationError when the template has no such mapping or function.
 */
export const devSettingsFromTemplate = (
  template: CfnTemplate,
  local: ProvisionedResources,
): DevSettings => {
  const resources = Object.entries(template.Resources);
  const mappings = resources.filter(([, r]) => r.Type === EVENT_SOURCE_MAPPING);
  const sqsMapping = mappings.find(([, r]) => {
    const source = referencedLogicalId(r.Properties?.EventSourceArn);
    return source !== undefined && local.queues[source.id] !== undefined;
  });
  if (sqsMapping === undefined) {
    throw new ConfigurationError("the template has no event source mapping from an SQS queue");
  }
  const mapping = sqsMapping[1].Properties ?? {};
  const functionId = referencedLogicalId(mapping.FunctionName)?.id;
  const fn = functionId === undefined ? undefined : template.Resources[functionId];
  if (functionId === undefined || fn?.Type !== FUNCTION) {
    throw new ConfigurationError(
      "the event source mapping does not name a function of the template",
    );
  }
  const props = fn.Properties ?? {};
  const env = localFunctionEnvironment(fn, local);
  for (const name of [
    ENV.TABLE_NAME,
    ENV.INGRESS_QUEUE_URL,
    ENV.INTERNAL_QUEUE_URL,
    ENV.DEAD_LETTER_QUEUE_URL,
  ]) {
    if (env[name] === undefined) {
      throw new ConfigurationError(`the orchestrator function does not set ${name}`);
    }
  }
  const scaling = isRecord(mapping.ScalingConfig) ? mapping.ScalingConfig : {};
  return {
    env,
    functionLogicalId: functionId,
    poller: {
      batchSize: numberOr(mapping.BatchSize, DEFAULT_BATCH_SIZE),
      batchingWindowMs: numberOr(mapping.MaximumBatchingWindowInSeconds, 0) * 1000,
      maxConcurrency: numberOr(scaling.MaximumConcurrency, DEFAULT_MAX_CONCURRENCY),
      functionTimeoutMs: numberOr(props.Timeout, DEFAULT_TIMEOUT_SECONDS) * 1000,
    },
  };
};

/*
 * What a contender would deploy, in the terms AWS checks at deploy time and bills by. The bench
 * builds each contender's queues and consumer from this one description and refuses to run a
 * contender whose description AWS would refuse (`deploymentProblems`), so a comparison can never
 * again race a setup that could not exist.
 */

/** An SQS queue a function consumes. */
interface QueueDeployment {
  /** Seconds a received message stays hidden; Lambda refuses a mapping below the function timeout. */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before SQS moves a message to the dead-letter queue (native redrive). */
  readonly maxReceiveCount: number;
}

/** One SQS event source mapping: a queue and how its batches are made. */
export interface MappingDeployment {
  /** Which queue of the contender: `in` (the producers') or `internal`. */
  readonly queueRole: "in" | "internal";
  readonly queue: QueueDeployment;
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  /** The mapping's maximum concurrency (2–1 000); unset, only the function's budget bounds it. */
  readonly maximumConcurrency?: number;
}

/** Where a contender keeps its records, for the storage half of the DynamoDB bill. */
interface TableDeployment {
  /** How long an item stays before its TTL removes it. */
  readonly retentionSeconds: number;
  /** Point-in-time recovery, billed per GB-month of table size on top of storage. */
  readonly pointInTimeRecovery: boolean;
}

/** A contender's function and everything that feeds it. */
export interface FunctionDeployment {
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly architecture: "arm64" | "x86_64";
  readonly mappings: readonly [MappingDeployment, ...MappingDeployment[]];
  readonly table?: TableDeployment;
}

const LAMBDA_MAX_TIMEOUT_SECONDS = 900;
const SQS_MAX_VISIBILITY_SECONDS = 43_200;
const SQS_UNWINDOWED_MAX_BATCH = 10;
const SQS_MAX_BATCH = 10_000;
const MAX_BATCHING_WINDOW_SECONDS = 300;

const wholeIn = (value: number, min: number, max: number): boolean =>
  Number.isInteger(value) && value >= min && value <= max;

const mappingProblems = (
  mapping: MappingDeployment,
  timeoutSeconds: number,
  index: number,
): string[] => {
  const where = `mapping ${index + 1} (${mapping.queueRole})`;
  const { queue } = mapping;
  return [
    !wholeIn(queue.visibilityTimeoutSeconds, 0, SQS_MAX_VISIBILITY_SECONDS) &&
      `${where}: the queue's visibility timeout must be 0–${SQS_MAX_VISIBILITY_SECONDS} s`,
    queue.visibilityTimeoutSeconds < timeoutSeconds &&
      `${where}: the queue's visibility timeout (${queue.visibilityTimeoutSeconds} s) is below the function timeout (${timeoutSeconds} s), which Lambda refuses for an SQS event source`,
    !wholeIn(queue.maxReceiveCount, 1, 1_000) && `${where}: maxReceiveCount must be 1–1000`,
    !wholeIn(mapping.batchSize, 1, SQS_MAX_BATCH) &&
      `${where}: batch size must be 1–${SQS_MAX_BATCH}`,
    !wholeIn(mapping.maxBatchingWindowSeconds, 0, MAX_BATCHING_WINDOW_SECONDS) &&
      `${where}: the batching window must be 0–${MAX_BATCHING_WINDOW_SECONDS} s`,
    mapping.batchSize > SQS_UNWINDOWED_MAX_BATCH &&
      mapping.maxBatchingWindowSeconds < 1 &&
      `${where}: a batch size above ${SQS_UNWINDOWED_MAX_BATCH} needs a batching window of at least 1 s`,
    mapping.maximumConcurrency !== undefined &&
      !wholeIn(mapping.maximumConcurrency, 2, 1_000) &&
      `${where}: maximum concurrency must be 2–1000`,
  ].filter((problem): problem is string => typeof problem === "string");
};

/** Every rule the deployment breaks that AWS enforces at deploy time; empty when it would deploy. */
export const deploymentProblems = (deployment: FunctionDeployment): string[] => [
  ...(wholeIn(deployment.timeoutSeconds, 1, LAMBDA_MAX_TIMEOUT_SECONDS)
    ? []
    : [`the function timeout must be 1–${LAMBDA_MAX_TIMEOUT_SECONDS} s`]),
  ...(wholeIn(deployment.memoryMb, 128, 10_240)
    ? []
    : ["the function memory must be 128–10240 MB"]),
  ...deployment.mappings.flatMap((mapping, index) =>
    mappingProblems(mapping, deployment.timeoutSeconds, index),
  ),
];

/** Throws one error naming every rule broken, so an undeployable contender never runs. */
export const assertDeployable = (name: string, deployment: FunctionDeployment): void => {
  const problems = deploymentProblems(deployment);
  if (problems.length > 0) {
    throw new Error(`contender ${name} could not be deployed: ${problems.join("; ")}`);
  }
};

/** The mappings as the tables print them: `queue (batch, window s, visibility s)`, joined. */
export const mappingsText = (deployment: FunctionDeployment): string =>
  deployment.mappings
    .map(
      (m) =>
        `${m.queueRole} (${m.batchSize}, ${m.maxBatchingWindowSeconds}, ${m.queue.visibilityTimeoutSeconds})`,
    )
    .join(" + ");

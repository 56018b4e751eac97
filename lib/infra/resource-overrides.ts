import type { TableProps } from "aws-cdk-lib/aws-dynamodb";
import type { QueueProps } from "aws-cdk-lib/aws-sqs";
import type { InputProblem } from "../core/errors.js";
import type { RicochetFunctionProps } from "./ricochet-function.js";

/*
 * The escape hatch, as AWS Solutions Constructs offer one: props of the underlying resources,
 * merged over Ricochet's own. Props that carry one of Ricochet's guarantees (a queue's visibility
 * timeout against the function timeout, the table's keys, the function's environment) are refused
 * with the prop to use instead, so an override can tune a resource but never break a guarantee.
 */

/** Props of Ricochet's resources that a deployment may set itself. */
export interface ResourceOverrides {
  /**
   * Merged over the ingress queue's props (a name, tags' worth of settings, long polling).
   * Refused: what the construct sets from its own props or needs as it is (see {@link QUEUE_GUARANTEES}).
   * @default - Ricochet's settings only
   */
  readonly ingressQueueProps?: QueueProps;
  /**
   * Merged over the dead-letter queue's props. Refused as for {@link ingressQueueProps}.
   * @default - Ricochet's settings only
   */
  readonly deadLetterQueueProps?: QueueProps;
  /**
   * Merged over the record table's props (a name, deletion protection, a stream, provisioned
   * capacity). Refused: its keys, TTL attribute, encryption, recovery and removal policy.
   * @default - Ricochet's settings only
   */
  readonly tableProps?: Partial<TableProps>;
  /**
   * Merged over the orchestrator function's props (a name, reserved concurrency, a VPC, a role).
   * Refused: its runtime, environment, timeout, memory and event sources.
   * @default - Ricochet's settings only
   */
  readonly orchestratorFunctionProps?: Partial<RicochetFunctionProps>;
}

/** Why each refused prop is Ricochet's, by resource. */
type Guarantees = Readonly<Record<string, string>>;

const QUEUE_GUARANTEES: Guarantees = {
  visibilityTimeout: "is six times functionTimeout, so a message stays hidden across retries",
  deadLetterQueue: "is Ricochet's dead-letter queue; set maxReceiveCount instead",
  retentionPeriod: "is set by ingressRetention and deadLetterRetention",
  encryption: "is set by the encryption prop",
  encryptionMasterKey: "is set by the encryption prop",
  enforceSSL: "stays on: messages hold producers' headers",
  fifo: "must stay a standard queue: retries are sent with a per-message delay",
  contentBasedDeduplication: "applies to FIFO queues only, which Ricochet cannot use",
  deduplicationScope: "applies to FIFO queues only, which Ricochet cannot use",
  fifoThroughputLimit: "applies to FIFO queues only, which Ricochet cannot use",
  deliveryDelay: "would delay every hop and retry on top of its own delay",
  removalPolicy: "is set by the removalPolicy prop",
};

const TABLE_GUARANTEES: Guarantees = {
  partitionKey: "is the event id every record is read by",
  sortKey: "would split an event's record in several items",
  timeToLiveAttribute: "is the attribute recordRetentionDays sets",
  encryption: "is set by the encryption prop",
  encryptionKey: "is set by the encryption prop",
  pointInTimeRecovery: "stays on: the table is the audit trail",
  pointInTimeRecoverySpecification: "stays on: the table is the audit trail",
  removalPolicy: "is set by the removalPolicy prop",
};

const FUNCTION_GUARANTEES: Guarantees = {
  runtime: "is the runtime the bundle is built and tested for",
  environment: "is Ricochet's configuration; set the construct's props instead",
  timeout: "is set by functionTimeout, which the queues' visibility timeout follows",
  memorySize: "is set by memorySize",
  events: "are the two queues' event sources; add others with addEventSource",
};

const refused = (prop: string, given: object | undefined, guarantees: Guarantees) =>
  Object.entries(given ?? {}).flatMap(([key, value]): InputProblem[] => {
    const reason = guarantees[key];
    return value === undefined || reason === undefined
      ? []
      : [{ path: `${prop}.${key}`, message: `cannot be overridden: it ${reason}` }];
  });

/** The overrides that would break a guarantee, each with the reason. */
export const overrideProblems = (overrides: ResourceOverrides): InputProblem[] => [
  ...refused("ingressQueueProps", overrides.ingressQueueProps, QUEUE_GUARANTEES),
  ...refused("deadLetterQueueProps", overrides.deadLetterQueueProps, QUEUE_GUARANTEES),
  ...refused("tableProps", overrides.tableProps, TABLE_GUARANTEES),
  ...refused("orchestratorFunctionProps", overrides.orchestratorFunctionProps, FUNCTION_GUARANTEES),
];

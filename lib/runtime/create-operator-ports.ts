import type { AwsClients } from "../adapters/aws-clients.js";
import { createDynamoEventStore } from "../adapters/dynamo-event-store.js";
import { createDynamoTargetStateStore } from "../adapters/dynamo-target-state-store.js";
import { createSqsDeadLetterQueue } from "../adapters/sqs-dead-letter-queue.js";
import { createSqsIngressQueue } from "../adapters/sqs-ingress-queue.js";
import { createStsCallerIdentity } from "../adapters/sts-caller-identity.js";
import type {
  CallerIdentity,
  DeadLetterQueue,
  EventStore,
  IngressQueue,
  TargetStateStore,
} from "../core/ports.js";
import type { CallerSource } from "../core/record.js";

/*
 * The adapters an operator action (redrive, cancel, replay, dlq clean, status) works through,
 * wired in one place for the operator function (functions/operator.ts) and the CLI alike. Each
 * port is built when asked for, and asks only for the resources it needs: a CLI command then
 * resolves (from flags, environment or the stack) only what it uses.
 */

/** The deployment resources an operator's ports are built over. */
export type OperatorResource =
  | "ingressQueueUrl"
  | "internalQueueUrl"
  | "deadLetterQueueUrl"
  | "tableName";

export interface OperatorPortsOptions {
  readonly clients: AwsClients;
  /** A resource's URL or name; asked when a port that needs it is built. */
  readonly resource: (name: OperatorResource) => string;
  /** How the audit entries' `caller` is labelled: the function's role, or the operator's. */
  readonly callerSource: CallerSource;
  /** The internal queue's longest delay (the deployment's hop); the SQS maximum when unset. */
  readonly maxDelaySeconds?: number | undefined;
}

/** The operator's ports, each built on demand. */
export interface OperatorPorts {
  ingressQueue(): IngressQueue;
  deadLetterQueue(): DeadLetterQueue;
  store(): EventStore;
  /** The targets' breaker items, in the event table. */
  targetState(): TargetStateStore;
  /** Who AWS says the credentials belong to, for audit entries (STS GetCallerIdentity). */
  callerIdentity(): CallerIdentity;
}

/** Wires the operator's adapters over one set of SDK clients. */
export const createOperatorPorts = ({
  clients,
  resource,
  callerSource,
  maxDelaySeconds,
}: OperatorPortsOptions): OperatorPorts => ({
  ingressQueue: () =>
    createSqsIngressQueue({
      sqs: clients.sqs,
      ingressQueueUrl: resource("ingressQueueUrl"),
      internalQueueUrl: resource("internalQueueUrl"),
      ...(maxDelaySeconds === undefined ? {} : { maxDelaySeconds }),
    }),
  deadLetterQueue: () =>
    createSqsDeadLetterQueue({ sqs: clients.sqs, queueUrl: resource("deadLetterQueueUrl") }),
  store: () => createDynamoEventStore({ doc: clients.documents, tableName: resource("tableName") }),
  targetState: () =>
    createDynamoTargetStateStore({ doc: clients.documents, tableName: resource("tableName") }),
  callerIdentity: () => createStsCallerIdentity({ sts: clients.sts, source: callerSource }),
});

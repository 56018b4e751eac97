import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { SQSBatchResponse } from "aws-lambda";
import { expect, it, vi } from "vitest";
import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { createSqsDeadLetterQueue } from "../../lib/adapters/sqs-dead-letter-queue.js";
import {
  type DeadLetterListing,
  listDeadLetters,
} from "../../lib/app/operator/dead-letter-scan.js";
import type { RedriveReport } from "../../lib/app/operator/redrive.js";
import { ENV } from "../../lib/contract/environment.js";
import type { EventRecord } from "../../lib/core/record.js";
import type { EventStatus } from "../../lib/core/status.js";
import {
  type EventSourcePoller,
  startEventSourcePoller,
} from "../../lib/local/event-source-poller.js";
import { type BundleHost, startBundleHost } from "./deployed-bundle.js";
import { uniqueName } from "./local-aws.js";
import { ScriptedReceiver } from "./scripted-receiver.js";

/*
 * The deployed orchestrator and operator bundles, each in its own Node process with a deployment's
 * environment, the orchestrator fed by the project's event source poller from both queues it is
 * mapped to: the rig of every test that runs what `cdk deploy` ships, whichever way the queues
 * and table it names were made (from the template by the project, or by a CloudFormation).
 */

/** What the receiver answers: by the event id's prefix, and the call's index for that event. */
const script = (eventId: string, call: number) => {
  if (eventId.startsWith("flaky-")) return { status: call === 0 ? 503 : 200 };
  if (eventId.startsWith("refused-")) return { status: call === 0 ? 400 : 200 };
  return { status: 200 };
};

/** A deployment the functions run in: their environments and how the event sources drive them. */
export interface DeployedFunctionsOptions {
  readonly orchestratorBundle: string;
  readonly operatorBundle: string;
  /** Each function's environment as deployed, plus what the Lambda runtime adds. */
  readonly orchestratorEnv: Readonly<Record<string, string>>;
  readonly operatorEnv: Readonly<Record<string, string>>;
  readonly orchestratorName: string;
  readonly sqs: SQSClient;
  readonly documents: DynamoDBDocumentClient;
  readonly region: string;
  /** The event source mappings' batch size and the function's timeout. */
  readonly batchSize: number;
  readonly functionTimeoutMs: number;
}

/** The running functions, a scripted receiver, and what a test asks of the deployment. */
export interface DeployedFunctions {
  readonly receiverUrl: string;
  /** `process.version` of the Node.js each function runs on. */
  readonly nodeVersions: { readonly orchestrator: string; readonly operator: string };
  submit(body: unknown): Promise<void>;
  untilStatus(eventId: string, status: EventStatus): Promise<EventRecord | undefined>;
  deadLetters(eventId: string): Promise<DeadLetterListing[]>;
  redrive(request: Record<string, unknown>): Promise<RedriveReport>;
  callsFor(eventId: string): ScriptedReceiver["calls"];
  stop(): Promise<void>;
}

/** Starts the receiver, both bundles and the pollers of the orchestrator's two queues. */
export const startDeployedFunctions = async (
  options: DeployedFunctionsOptions,
): Promise<DeployedFunctions> => {
  const receiver = new ScriptedReceiver(script);
  const receiverUrl = await receiver.start();
  const env = options.orchestratorEnv;
  const [orchestrator, operatorFunction]: BundleHost[] = await Promise.all([
    startBundleHost(options.orchestratorBundle, env),
    startBundleHost(options.operatorBundle, options.operatorEnv),
  ]);
  const store = createDynamoEventStore({
    doc: options.documents,
    tableName: String(env[ENV.TABLE_NAME]),
  });
  const pollers: EventSourcePoller[] = [
    env[ENV.INGRESS_QUEUE_URL],
    env[ENV.INTERNAL_QUEUE_URL],
  ].map((queueUrl) =>
    startEventSourcePoller({
      sqs: options.sqs,
      queueUrl: String(queueUrl),
      handler: async (event, context) =>
        (await orchestrator?.invoke(event, context.getRemainingTimeInMillis())) as SQSBatchResponse,
      functionName: options.orchestratorName,
      region: options.region,
      batchSize: options.batchSize,
      functionTimeoutMs: options.functionTimeoutMs,
      batchingWindowMs: 0,
      waitTimeSeconds: 1,
    }),
  );
  return {
    receiverUrl,
    nodeVersions: {
      orchestrator: String(orchestrator?.nodeVersion),
      operator: String(operatorFunction?.nodeVersion),
    },
    submit: async (body) => {
      await options.sqs.send(
        new SendMessageCommand({
          QueueUrl: String(env[ENV.INGRESS_QUEUE_URL]),
          MessageBody: JSON.stringify(body),
        }),
      );
    },
    untilStatus: (eventId, status) =>
      vi.waitFor(
        async () => {
          const record = await store.get(eventId);
          expect(record?.status).toBe(status);
          return record;
        },
        { timeout: 45_000, interval: 250 },
      ),
    deadLetters: (eventId) =>
      listDeadLetters(
        createSqsDeadLetterQueue({
          sqs: options.sqs,
          queueUrl: String(env[ENV.DEAD_LETTER_QUEUE_URL]),
        }),
        { filter: { eventIds: [eventId] }, visibilitySeconds: 2 },
        store,
      ),
    redrive: (request) =>
      operatorFunction?.invoke(
        { by: "deployed-functions test", ...request },
        900_000,
      ) as Promise<RedriveReport>,
    callsFor: (eventId) => receiver.calls.filter((call) => call.eventId === eventId),
    stop: async () => {
      await Promise.all(pollers.map((poller) => poller.stop()));
      await Promise.all([orchestrator?.stop(), operatorFunction?.stop(), receiver.stop()]);
    },
  };
};

/** An event to the receiver, with a short fixed retry delay. */
const deployedEvent = (
  deployed: DeployedFunctions,
  eventId: string,
  policy: Record<string, unknown> = {},
) => ({
  version: 1,
  eventId,
  target: { type: "http", url: `${deployed.receiverUrl}/hook` },
  payload: { eventId },
  policy: { jitter: "none", baseDelaySeconds: 2, maxAttempts: 3, ...policy },
});

/**
 * The cases every deployment of the functions must pass: a delivery, a retry after its delay, a
 * rejection dead-lettered, and a redrive (dry, then real) that brings it back to delivery.
 */
export const itDeliversAsDeployed = (deployed: () => DeployedFunctions): void => {
  it("deliver an event on the first call and record it delivered", async () => {
    const world = deployed();
    const eventId = uniqueName("ok");
    await world.submit(deployedEvent(world, eventId));

    const record = await world.untilStatus(eventId, "delivered");

    expect(record?.attempts).toBe(1);
    expect(world.callsFor(eventId)).toHaveLength(1);
  }, 60_000);

  it("retry a 503 after the policy's delay, re-enqueued with DelaySeconds, then deliver", async () => {
    const world = deployed();
    const eventId = uniqueName("flaky");
    await world.submit(deployedEvent(world, eventId));

    const record = await world.untilStatus(eventId, "delivered");

    const [first, second] = world.callsFor(eventId);
    expect(record?.attempts).toBe(2);
    // jitter "none", base 2 s: the retry waits the whole 2 s before it becomes visible.
    expect((second?.startedAt ?? 0) - (first?.startedAt ?? 0)).toBeGreaterThanOrEqual(1_900);
  }, 60_000);

  it("dead-letter a permanent failure as rejected", async () => {
    const world = deployed();
    const eventId = uniqueName("refused");
    await world.submit(deployedEvent(world, eventId));

    await world.untilStatus(eventId, "rejected");

    expect(await world.deadLetters(eventId)).toEqual([
      expect.objectContaining({ eventId, reason: "rejected" }),
    ]);
    expect(world.callsFor(eventId)).toHaveLength(1);
  }, 60_000);

  it("redrive a rejected event: the dry run moves nothing, the real run brings it back to delivery", async () => {
    const world = deployed();
    const eventId = uniqueName("refused");
    await world.submit(deployedEvent(world, eventId));
    await world.untilStatus(eventId, "rejected");

    const dryRun = await world.redrive({ eventIds: [eventId], dryRun: true });
    expect(dryRun.moved.map((moved) => moved.eventId)).toEqual([eventId]);
    expect(await world.deadLetters(eventId)).toHaveLength(1);
    await world.untilStatus(eventId, "rejected");

    const real = await world.redrive({ eventIds: [eventId] });
    expect(real).toMatchObject({ dryRun: false, failed: [] });
    expect(real.moved.map((moved) => moved.eventId)).toEqual([eventId]);

    await world.untilStatus(eventId, "delivered");
    expect(await world.deadLetters(eventId)).toEqual([]);
    expect(world.callsFor(eventId)).toHaveLength(2);
  }, 90_000);
};

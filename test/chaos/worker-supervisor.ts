import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type RandomSource, randomInt } from "../../lib/core/random.js";
import { hasExited, terminate } from "../../lib/local/process-control.js";
import {
  isWorkerReport,
  WORKER_SETTINGS_ENV,
  type WorkerReport,
  type WorkerSettings,
} from "./worker-settings.js";

const WORKER_ENTRY = fileURLToPath(new URL("./worker.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** A worker that is not ready by then is broken, not slow. */
const READY_TIMEOUT_MS = 60_000;
const STDERR_TAIL_CHARS = 4_000;

export interface WorkerSupervisorOptions {
  readonly workers: number;
  /** Settings of worker `index`'s `incarnation`-th process (0 for the first). */
  readonly settingsFor: (index: number, incarnation: number) => WorkerSettings;
  readonly maxKills: number;
  /** No kill after this long from `startKilling()`. */
  readonly killWindowMs: number;
  /** Pause between kills, drawn from this range. */
  readonly killIntervalMs: readonly [min: number, max: number];
  readonly random: RandomSource;
  /** How long a stopping worker may take to finish its batches (a function timeout and some). */
  readonly stopGraceMs: number;
  /** Told of every report a worker makes besides `ready` (faults, landed result writes). */
  readonly onReport: (report: Exclude<WorkerReport, { type: "ready" }>) => void;
}

export interface WorkerSupervisor {
  /** Starts every worker and resolves once all are ready. */
  start(): Promise<void>;
  /** Starts killing workers at random (SIGKILL) and restarting them, within the bounds. */
  startKilling(): void;
  /** Stops killing; stops every worker (SIGTERM, then SIGKILL) and waits for their exits. */
  stop(): Promise<void>;
  readonly kills: number;
  /** Workers that exited without being killed or stopped. */
  readonly crashes: number;
  /** The last stderr of crashed workers, for the report. */
  readonly crashOutput: readonly string[];
}

interface Slot {
  readonly index: number;
  incarnation: number;
  child: ChildProcess | undefined;
  /** Exits of this child are expected (killed or stopped). */
  expectingExit: boolean;
}

/**
 * Runs chaos worker processes (`test/chaos/worker.ts` under tsx), kills them at random within a
 * bounded count and time, and restarts them. A worker that dies on its own is restarted too and
 * counted as a crash. Everything it started has exited when `stop()` resolves.
 */
export const startWorkerSupervisor = (options: WorkerSupervisorOptions): WorkerSupervisor => {
  const slots: Slot[] = Array.from({ length: options.workers }, (_, index) => ({
    index,
    incarnation: 0,
    child: undefined,
    expectingExit: false,
  }));
  let stopping = false;
  let kills = 0;
  let crashes = 0;
  const crashOutput: string[] = [];
  let killLoop: Promise<void> | undefined;
  let wakeKillLoop: (() => void) | undefined;

  const spawnWorker = (slot: Slot): Promise<void> => {
    const settings = options.settingsFor(slot.index, slot.incarnation);
    const child = fork(WORKER_ENTRY, [], {
      cwd: REPO_ROOT,
      execArgv: ["--import", "tsx"],
      env: { ...process.env, [WORKER_SETTINGS_ENV]: JSON.stringify(settings) },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    slot.child = child;
    slot.expectingExit = false;
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${settings.workerId} not ready after ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
      child.on("message", (message: unknown) => {
        if (!isWorkerReport(message)) return;
        const report: WorkerReport = message;
        if (report.type === "ready") {
          clearTimeout(timer);
          resolve();
        } else options.onReport(report);
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${settings.workerId} exited before it was ready (${signal ?? code})`));
      });
    });
    child.once("exit", (code, signal) => {
      if (slot.expectingExit || stopping) return;
      crashes += 1;
      crashOutput.push(`${settings.workerId} exited (${signal ?? code}): ${stderr.trim()}`);
      slot.incarnation += 1;
      // A crash-looping worker must not spin: it comes back after a pause.
      setTimeout(() => {
        if (!stopping) spawnWorker(slot).catch(() => undefined);
      }, 1_000).unref();
    });
    return ready;
  };

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeKillLoop = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const killAtRandom = async (): Promise<void> => {
    const endAt = Date.now() + options.killWindowMs;
    const [min, max] = options.killIntervalMs;
    while (!stopping && kills < options.maxKills && Date.now() < endAt) {
      await pause(randomInt(options.random, min, max));
      if (stopping) return;
      const slot = slots[randomInt(options.random, 0, slots.length - 1)];
      const child = slot?.child;
      if (slot === undefined || child === undefined || hasExited(child)) continue;
      slot.expectingExit = true;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGKILL");
      await exited;
      kills += 1;
      slot.incarnation += 1;
      if (!stopping) await spawnWorker(slot).catch(() => undefined);
    }
  };

  return {
    start: async () => {
      await Promise.all(slots.map((slot) => spawnWorker(slot)));
    },
    startKilling: () => {
      killLoop ??= killAtRandom();
    },
    stop: async () => {
      stopping = true;
      wakeKillLoop?.();
      await killLoop;
      await Promise.all(
        slots.map(async (slot) => {
          slot.expectingExit = true;
          if (slot.child !== undefined)
            await terminate(slot.child, { graceMs: options.stopGraceMs });
        }),
      );
    },
    get kills() {
      return kills;
    },
    get crashes() {
      return crashes;
    },
    crashOutput,
  };
};

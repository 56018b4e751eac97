import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ENV } from "../../../lib/contract/environment.js";
import type { DemoSummary } from "../../../lib/local/demo/demo-summary.js";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * Environment of a child `ricochet dev`: no inherited endpoint, so it starts its own emulators,
 * and no inherited allowed hosts, so only what a test passes in `extra` is allowed.
 */
const childEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("AWS_ENDPOINT_URL")) delete env[name];
  delete env[ENV.ALLOWED_TARGET_HOSTS];
  return { ...env, ...extra };
};

/**
 * `ricochet dev` as one node process (no npx wrapper), so a signal reaches it directly.
 * `ownGroup` makes it lead a process group of its own, with the children it starts, as a shell
 * runs a foreground job: a signal to `-pid` is then what Ctrl-C at a terminal sends.
 */
export const spawnDev = (
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  options: { readonly ownGroup?: boolean } = {},
): ChildProcess =>
  spawn(process.execPath, ["--import", "tsx", "bin/ricochet.ts", "dev", ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.ownGroup === true,
  });

/** A running `ricochet dev` and the banner it printed. */
export interface RunningDev {
  readonly child: ChildProcess;
  readonly banner: string;
  /** What the banner tells a producer to export (`export NAME='value'` lines). */
  readonly exports: Readonly<Record<string, string>>;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
}

/** Starts `ricochet dev` and resolves once its banner is complete; rejects if it exits first. */
export const startDev = async (
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  options: { readonly ownGroup?: boolean } = {},
): Promise<RunningDev> => {
  const child = spawnDev(args, env, options);
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("Press Ctrl-C")) resolve();
    });
    child.once("exit", () => reject(new Error(`exited before its banner: ${stderr.slice(-2000)}`)));
  });
  const exports = Object.fromEntries(
    [...stdout.matchAll(/export (\w+)='([^']*)'/g)].map((m) => [m[1] ?? "", m[2] ?? ""]),
  );
  return { child, banner: stdout, exports, stderr: () => stderr };
};

/** Resolves with the exit code once the process has exited. */
export const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

/** What one scripted `ricochet dev --once --json` run printed and how it exited. */
export interface ScriptedRun {
  readonly code: number | null;
  /** The last line of stdout, parsed; undefined when the run printed none. */
  readonly summary: DemoSummary | undefined;
  readonly stderr: string;
}

/** Runs `ricochet dev --once --json` with `args` to its exit and reads its summary. */
export const runScripted = async (args: readonly string[]): Promise<ScriptedRun> => {
  const child = spawnDev(["--once", "--json", ...args]);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await exited(child);
  const last = stdout.trim().split("\n").at(-1) ?? "";
  return {
    code,
    summary: last.startsWith("{") ? (JSON.parse(last) as DemoSummary) : undefined,
    stderr,
  };
};

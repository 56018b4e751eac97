import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Environment of a child `ricochet dev`: no inherited endpoint, so it starts its own emulators. */
export const childEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("AWS_ENDPOINT_URL")) delete env[name];
  return env;
};

/** `ricochet dev` as one node process (no npx wrapper), so a signal reaches it directly. */
export const spawnDev = (args: readonly string[]): ChildProcess =>
  spawn(process.execPath, ["--import", "tsx", "bin/ricochet.ts", "dev", ...args], {
    cwd: ROOT,
    env: childEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });

/** Resolves with the exit code once the process has exited. */
export const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

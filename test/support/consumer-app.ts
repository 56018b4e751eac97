import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../lib/infra/bundling.js";
import { pathWithNode } from "./lambda-node.js";

const run = promisify(execFile);

/** The scratch app's name, as `cdk init` derives file and class names from its directory. */
const CONSUMER_APP_NAME = "consumer-app";

/**
 * What a CDK app made by `cdk init app --language typescript` has installed: its own dependencies
 * (aws-cdk-lib, constructs) and the tools its `cdk.json` runs (aws-cdk, typescript, tsx). Of
 * Ricochet's devDependencies only these are visible to the app: the rest (esbuild, the emulators,
 * cdk-nag) are what a user does not have, and the package must work without them.
 */
const APP_PACKAGES: ReadonlySet<string> = new Set([
  "aws-cdk-lib",
  "constructs",
  "aws-cdk",
  "typescript",
  "tsx",
  "@types/node",
]);

interface Manifest {
  readonly bin?: string | Record<string, string>;
  readonly name?: string;
  readonly devDependencies?: Record<string, string>;
}

const readManifest = async (dir: string): Promise<Manifest> =>
  JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Manifest;

/** Packages of this repository's node_modules the app must not see (see {@link APP_PACKAGES}). */
const hiddenPackages = async (): Promise<Set<string>> => {
  const own = await readManifest(PROJECT_ROOT);
  return new Set(Object.keys(own.devDependencies ?? {}).filter((name) => !APP_PACKAGES.has(name)));
};

/** Top-level package names of a node_modules directory, scoped ones as `@scope/name`. */
const packageNames = async (nodeModules: string): Promise<string[]> => {
  const names: string[] = [];
  for (const entry of await readdir(nodeModules)) {
    if (entry.startsWith(".")) continue;
    if (!entry.startsWith("@")) names.push(entry);
    else
      for (const inner of await readdir(join(nodeModules, entry))) names.push(`${entry}/${inner}`);
  }
  return names;
};

/** Links `node_modules/.bin/<name>` for each of a package's bins, as npm does on install. */
const linkBins = async (nodeModules: string, name: string): Promise<void> => {
  const manifest = await readManifest(join(nodeModules, name));
  const bins =
    typeof manifest.bin === "string"
      ? { [name.split("/").pop() ?? name]: manifest.bin }
      : (manifest.bin ?? {});
  for (const [bin, path] of Object.entries(bins)) {
    const link = join(nodeModules, ".bin", bin);
    await rm(link, { force: true });
    await symlink(relative(join(nodeModules, ".bin"), join(nodeModules, name, path)), link);
  }
};

/**
 * The app's node_modules without an `npm install`: a link to each package of this repository's
 * node_modules (installed by `npm ci` from the lock file, so no registry is needed) except the
 * hidden ones, and the packed tarball unpacked as `ricochet`, as npm would unpack it.
 */
const installPackages = async (appDir: string, tarball: string): Promise<void> => {
  const source = await realpath(join(PROJECT_ROOT, "node_modules"));
  const target = join(appDir, "node_modules");
  const hidden = await hiddenPackages();
  await mkdir(join(target, ".bin"), { recursive: true });
  for (const name of await packageNames(source)) {
    if (hidden.has(name) || name === "ricochet") continue;
    await mkdir(dirname(join(target, name)), { recursive: true });
    await symlink(join(source, name), join(target, name));
  }
  const ricochet = join(target, "ricochet");
  await mkdir(ricochet, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", ricochet, "--strip-components=1"]);
  for (const name of [...APP_PACKAGES, "ricochet"]) await linkBins(target, name);
};

/**
 * The app's stack, using the construct from the package as the README shows, with the per-target
 * props (breakers, limits, a declared group, target metrics) a team with many partners sets.
 */
const STACK_SOURCE = `import * as cdk from "aws-cdk-lib/core";
import { Construct } from "constructs";
import { RetryOrchestrator } from "ricochet/infra";

export class ConsumerAppStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);
    new RetryOrchestrator(this, "Retries", {
      defaultPolicy: { maxAttempts: 5 },
      allowedTargetHosts: ["hooks.example.com", "eu.hooks.example.com"],
      circuitBreaker: { openMs: 60_000 },
      breakerOpenAlarmAge: cdk.Duration.minutes(20),
      targets: {
        defaults: { maxConcurrentCalls: 50 },
        overrides: { "group:tenant-42": { maxCallsPerSecond: 5, failureRateThreshold: 0.25 } },
        groups: {
          "tenant-42": ["http:https://hooks.example.com:443", "http:https://eu.hooks.example.com:443"],
        },
      },
      targetMetrics: ["group:tenant-42"],
      adaptiveLimits: true,
    });
  }
}
`;

/**
 * Adapts the generated app to what is installed offline: the template's jest test and types go
 * (jest is not installed here), and the stack gets the orchestrator. Its cdk.json, tsconfig.json,
 * bin/ entry and package.json stay as `cdk init` wrote them.
 */
const addOrchestrator = async (appDir: string): Promise<void> => {
  await rm(join(appDir, "test"), { recursive: true, force: true });
  await rm(join(appDir, "jest.config.js"), { force: true });
  const tsconfigPath = join(appDir, "tsconfig.json");
  const tsconfig = JSON.parse(await readFile(tsconfigPath, "utf8")) as {
    compilerOptions: { types?: string[] };
  };
  tsconfig.compilerOptions.types = (tsconfig.compilerOptions.types ?? []).filter(
    (type) => type !== "jest",
  );
  await writeFile(tsconfigPath, JSON.stringify(tsconfig, null, 2));
  await writeFile(join(appDir, "lib", `${CONSUMER_APP_NAME}-stack.ts`), STACK_SOURCE);
};

/** Where scratch apps are kept, by tarball: making one takes seconds, not worth a deeper cache. */
const APPS = join(tmpdir(), "ricochet-consumer-apps");

/**
 * A CDK app made by this repository's `cdk init app --language typescript` (the template users get
 * today: tsx and TypeScript, CommonJS), with the packed Ricochet installed and a stack that creates
 * a `RetryOrchestrator`. A fresh one per call.
 * @returns the app's directory.
 */
export const createConsumerApp = async (tarball: string): Promise<string> => {
  const appDir = join(APPS, `${process.pid}-${Date.now()}`, CONSUMER_APP_NAME);
  await mkdir(appDir, { recursive: true });
  await run(
    join(PROJECT_ROOT, "node_modules", ".bin", "cdk"),
    ["init", "app", "--language", "typescript", "--generate-only"],
    { cwd: appDir, env: appEnv(), timeout: 120_000 },
  );
  if (!existsSync(join(appDir, "cdk.json"))) throw new Error("cdk init wrote no cdk.json");
  await installPackages(appDir, tarball);
  await addOrchestrator(appDir);
  return appDir;
};

/** Removes an app made by {@link createConsumerApp}. */
export const removeConsumerApp = (appDir: string): Promise<void> =>
  rm(dirname(appDir), { recursive: true, force: true });

/** How a command runs in the app. */
export interface AppCommandOptions {
  /** The Node.js binary `node`, `npx` and the bins run on; the PATH's by default. */
  readonly node?: string;
}

/**
 * The environment commands run in from the app: offline (nothing may come from a registry), no
 * Docker (a build that needed it would fail rather than wait), no CDK version check.
 */
const appEnv = (options: AppCommandOptions = {}): NodeJS.ProcessEnv => ({
  PATH: options.node === undefined ? process.env.PATH : pathWithNode(options.node),
  HOME: process.env.HOME,
  npm_config_offline: "true",
  npm_config_update_notifier: "false",
  CDK_DISABLE_VERSION_CHECK: "1",
  CDK_DOCKER: "/nonexistent/docker",
});

/** Runs a command in the app; rejects with its output when it exits non-zero. */
export const inApp = (
  appDir: string,
  command: string,
  args: readonly string[],
  options: AppCommandOptions = {},
): Promise<{ stdout: string; stderr: string }> =>
  run(command, [...args], {
    cwd: appDir,
    env: appEnv(options),
    timeout: 240_000,
    maxBuffer: 32 << 20,
  });

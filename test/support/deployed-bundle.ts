import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { App } from "aws-cdk-lib";
import { PROJECT_ROOT } from "../../lib/infra/bundling.js";
import type { RetryOrchestratorProps } from "../../lib/infra/retry-orchestrator-props.js";
import { RicochetStack } from "../../lib/infra/ricochet-stack.js";
import { tailOutput } from "../../lib/local/output-tail.js";
import { referencedLogicalId } from "../../lib/local/provision-from-template.js";
import type { CfnResource, CfnTemplate } from "../../lib/local/synthesize-template.js";
import { LAMBDA_RUNTIME, lambdaNode } from "./lambda-node.js";

/** A stack synthesized with its Lambda assets bundled, as `cdk deploy` would upload them. */
export interface DeployedStack {
  readonly template: CfnTemplate;
  /** The cloud assembly directory the template's asset paths are relative to. */
  readonly outdir: string;
  remove(): void;
}

/*
 * Under the project, not the system's temp directory: the bundles leave `@aws-sdk/*` external (the
 * Lambda runtime provides it), so they must sit where Node finds this project's node_modules.
 */
const ASSEMBLIES = join(PROJECT_ROOT, "cdk.out", "test-deployed-bundles");

const ASSET_METADATA = "aws:cdk:enable-asset-metadata";

/** Synthesizes a Ricochet stack with `props`, bundling its functions as a deployment does. */
export const synthesizeDeployedStack = (props: RetryOrchestratorProps): DeployedStack => {
  mkdirSync(ASSEMBLIES, { recursive: true });
  const outdir = mkdtempSync(join(ASSEMBLIES, "assembly-"));
  // As the CDK CLI does: functions then name their asset directory in `aws:asset:path`.
  const app = new App({ outdir, context: { [ASSET_METADATA]: true } });
  const stack = new RicochetStack(app, "Ricochet", { orchestrator: props });
  const template = app.synth().getStackByName(stack.stackName).template as CfnTemplate;
  return { template, outdir, remove: () => rmSync(outdir, { recursive: true, force: true }) };
};

/** The file a function's handler lives in, from its `aws:asset:path` metadata and `Handler`. */
export const functionBundle = (stack: DeployedStack, logicalId: string): string => {
  const fn: CfnResource | undefined = stack.template.Resources[logicalId];
  const asset = (fn as { Metadata?: Record<string, unknown> } | undefined)?.Metadata?.[
    "aws:asset:path"
  ];
  const handler = fn?.Properties?.Handler;
  if (typeof asset !== "string" || typeof handler !== "string") {
    throw new Error(`${logicalId} is not a function with a bundled asset`);
  }
  return join(stack.outdir, asset, `${handler.slice(0, handler.lastIndexOf("."))}.mjs`);
};

/** The logical id a function's environment variable refers to (`{ Ref: id }`). */
export const referencedFunction = (fn: CfnResource, variable: string): string => {
  const variables = (fn.Properties?.Environment as { Variables?: Record<string, unknown> })
    ?.Variables;
  const id = referencedLogicalId(variables?.[variable])?.id;
  if (id === undefined) throw new Error(`${variable} does not refer to a resource`);
  return id;
};

/*
 * The host: a plain process of the Lambda runtime's Node.js (no tsx, no test code) that imports
 * the bundle, as the runtime does an ESM handler, and runs its `handler` for each invocation sent
 * over IPC. The context has what Ricochet's handlers read: the remaining time.
 */
const HOST = `
const { handler } = await import(process.env.BUNDLE_URL);
process.on("message", async ({ id, event, timeoutMs }) => {
  const deadline = Date.now() + timeoutMs;
  const context = {
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    awsRequestId: "invocation-" + id,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    process.send({ id, result: await handler(event, context) });
  } catch (error) {
    process.send({ id, error: String(error?.stack ?? error) });
  }
});
process.send({ ready: true, node: process.version });
`;

type HostMessage =
  | { readonly ready: true; readonly node: string }
  | { readonly id: number; readonly result?: unknown; readonly error?: string };

/** A bundle loaded in its own Node process, invoked like a Lambda function. */
export interface BundleHost {
  /** `process.version` of the Node.js the bundle runs on. */
  readonly nodeVersion: string;
  invoke(event: unknown, timeoutMs: number): Promise<unknown>;
  stop(): Promise<void>;
}

/*
 * What the runtime sets in every function's environment besides region, credentials and name
 * (which the deployment's `env` carries), as far as a handler can observe it.
 */
const runtimeEnvironment = (bundlePath: string): Record<string, string> => ({
  AWS_EXECUTION_ENV: `AWS_Lambda_${LAMBDA_RUNTIME}`,
  AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
  LAMBDA_TASK_ROOT: dirname(bundlePath),
  LANG: "en_US.UTF-8",
  TZ: ":UTC",
});

/**
 * Starts a fresh process of the Lambda runtime's Node.js ({@link lambdaNode}) with exactly `env`
 * (plus PATH and the runtime's own variables) that imports the bundle from its directory, and
 * resolves once its module initialisation ran, so a bundle that fails at cold start fails here.
 */
export const startBundleHost = async (
  bundlePath: string,
  env: Readonly<Record<string, string>>,
): Promise<BundleHost> => {
  const node = await lambdaNode();
  const child: ChildProcess = spawn(node, ["--input-type=module", "--eval", HOST], {
    cwd: dirname(bundlePath),
    env: {
      PATH: process.env.PATH ?? "",
      ...runtimeEnvironment(bundlePath),
      ...env,
      BUNDLE_URL: pathToFileURL(bundlePath).href,
    },
    // The function's logs are kept, not printed: the tail goes into the errors below.
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const output = tailOutput([child.stdout, child.stderr]);
  const withOutput = (message: string) =>
    `${message}\n--- the function's output ---\n${output.text()}`;
  const pending = new Map<number, (message: HostMessage) => void>();
  let ready: ((nodeVersion: string) => void) | undefined;
  child.on("message", (message: HostMessage) => {
    if ("ready" in message) ready?.(message.node);
    else pending.get(message.id)?.(message);
  });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(withOutput(`the bundle's host exited (${String(code)}) before it was ready`));
  });
  exited.catch(() => undefined);
  const nodeVersion = await Promise.race([
    new Promise<string>((resolve) => (ready = resolve)),
    exited,
  ]);
  let next = 0;
  return {
    nodeVersion,
    invoke: (event, timeoutMs) =>
      new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, (message) => {
          pending.delete(id);
          if ("error" in message && message.error !== undefined)
            reject(new Error(withOutput(message.error)));
          else resolve("result" in message ? message.result : undefined);
        });
        child.send({ id, event, timeoutMs });
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const gone = once(child, "exit");
      child.kill();
      await gone;
    },
  };
};

import { spawn } from "node:child_process";
import { join } from "node:path";
import { DEFAULT_STACK_NAME } from "../contract/stack-outputs.js";
import { CONTEXT_KEY } from "../infra/app-context.js";
import { PROJECT_ROOT } from "../infra/bundling.js";
import { cdklocalEnv, HOST_FROM_LAMBDA, localStackContext } from "./localstack-deploy-settings.js";
import { cdkJsonContext } from "./synthesize-template.js";

/*
 * The cdklocal run behind `npm run deploy:local` and `npm run localstack:smoke`: one place that
 * knows the variables cdklocal needs and the context that lets the deployed orchestrator call a
 * receiver on the developer's machine, so the smoke deploys exactly what the documented loop does.
 */

/** What {@link deployToLocalStack} deploys into and how. */
export interface LocalStackDeployOptions {
  /** `cdklocal watch` (hotswap on every change) instead of one `cdklocal deploy`. */
  readonly watch?: boolean | undefined;
  /** Hosts allowed besides `cdk.json`'s and `host.docker.internal`. */
  readonly extraHosts?: readonly string[] | undefined;
  /** The caller's environment; `process.env` by default. */
  readonly env?: NodeJS.ProcessEnv | undefined;
}

/** The deployment a LocalStack deploy makes, known before anything runs. */
export interface LocalStackDeployment {
  /** The environment cdklocal runs with: the caller's, with the LocalStack variables over it. */
  readonly env: Record<string, string | undefined>;
  /** The `ricochet` context given with `-c`. */
  readonly context: Record<string, unknown>;
  /** The stack the context names (`Ricochet` unless `cdk.json` says otherwise). */
  readonly stackName: string;
}

/**
 * The environment, context and stack name of a LocalStack deployment: `cdk.json`'s context with
 * `host.docker.internal` (and `extraHosts`) allowed, and the variables cdklocal 3.x needs.
 */
export const localStackDeployment = (
  options: LocalStackDeployOptions = {},
): LocalStackDeployment => {
  const callerEnv = options.env ?? process.env;
  const context = localStackContext(cdkJsonContext(join(PROJECT_ROOT, "cdk.json"))[CONTEXT_KEY], [
    HOST_FROM_LAMBDA,
    ...(options.extraHosts ?? []),
  ]);
  const named = context.stackName;
  return {
    env: { ...callerEnv, ...cdklocalEnv(callerEnv) },
    context,
    stackName: typeof named === "string" && named !== "" ? named : DEFAULT_STACK_NAME,
  };
};

const cdklocal = (args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> =>
  new Promise((resolve, reject) => {
    process.stderr.write(`$ cdklocal ${args.join(" ")}\n`);
    // stdout goes to stderr: the smoke keeps stdout for its one JSON summary.
    const child = spawn("npx", ["cdklocal", ...args], {
      cwd: PROJECT_ROOT,
      env,
      stdio: ["inherit", process.stderr, "inherit"],
    });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code ?? 1));
  });

/**
 * Runs `cdklocal bootstrap`, then `cdklocal deploy --require-approval never --method=direct` (or
 * `cdklocal watch`) with the deployment's environment and context, echoing each command and its
 * output on stderr. Direct, not through a change set: an emulator's change-set path may lose the
 * stack's outputs (moto's does), and `localstack:smoke` and the CLI find the resources by them.
 * @returns the deployment and the exit code of the first command that failed, else 0.
 */
export const deployToLocalStack = async (
  options: LocalStackDeployOptions = {},
): Promise<LocalStackDeployment & { readonly exitCode: number }> => {
  const deployment = localStackDeployment(options);
  const { env, context } = deployment;
  process.stderr.write(
    [
      `deploying to ${env.AWS_ENDPOINT_URL} (S3 ${env.AWS_ENDPOINT_URL_S3}), region ${env.AWS_REGION}`,
      `allowed target hosts of this deployment: ${JSON.stringify(context.allowedTargetHosts)}`,
      "",
    ].join("\n"),
  );
  const contextArgs = ["-c", `${CONTEXT_KEY}=${JSON.stringify(context)}`];
  const bootstrapped = await cdklocal(["bootstrap", ...contextArgs], env);
  const exitCode =
    bootstrapped !== 0
      ? bootstrapped
      : await cdklocal(
          options.watch === true
            ? ["watch", ...contextArgs]
            : ["deploy", "--require-approval", "never", "--method=direct", ...contextArgs],
          env,
        );
  return { ...deployment, exitCode };
};

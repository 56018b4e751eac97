import { spawn } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CONTEXT_KEY } from "../lib/infra/app-context.js";
import { PROJECT_ROOT } from "../lib/infra/bundling.js";
import {
  cdklocalEnv,
  HOST_FROM_LAMBDA,
  localStackContext,
} from "../lib/local/localstack-deploy-settings.js";
import { cdkJsonContext } from "../lib/local/synthesize-template.js";

/*
 * `npm run deploy:local`: deploys the Ricochet stack into a running LocalStack with cdklocal,
 * with the variables cdklocal 3.x needs and host.docker.internal allowed as a target host.
 *
 *   npm run deploy:local                              # bootstrap, then deploy
 *   npm run deploy:local -- --watch                   # bootstrap, then `cdklocal watch` (hotswap)
 *   npm run deploy:local -- --allow-host 10.0.0.0/8   # allow more hosts (repeatable)
 */
const { values } = parseArgs({
  options: {
    watch: { type: "boolean", default: false },
    "allow-host": { type: "string", multiple: true, default: [] },
  },
});

const env = { ...process.env, ...cdklocalEnv(process.env) };
const context = localStackContext(cdkJsonContext(join(PROJECT_ROOT, "cdk.json"))[CONTEXT_KEY], [
  HOST_FROM_LAMBDA,
  ...(values["allow-host"] ?? []),
]);

const cdklocal = (args: readonly string[]): Promise<number> =>
  new Promise((resolve, reject) => {
    process.stderr.write(`$ cdklocal ${args.join(" ")}\n`);
    const child = spawn("npx", ["cdklocal", ...args], { cwd: PROJECT_ROOT, env, stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code ?? 1));
  });

process.stderr.write(
  [
    `LocalStack at ${env.AWS_ENDPOINT_URL} (S3 ${env.AWS_ENDPOINT_URL_S3}), region ${env.AWS_REGION}`,
    `allowed target hosts of this deployment: ${JSON.stringify(context.allowedTargetHosts)}`,
    "",
  ].join("\n"),
);
const contextArgs = ["-c", `${CONTEXT_KEY}=${JSON.stringify(context)}`];
const bootstrapped = await cdklocal(["bootstrap", ...contextArgs]);
process.exitCode =
  bootstrapped !== 0
    ? bootstrapped
    : await cdklocal(
        values.watch
          ? ["watch", ...contextArgs]
          : ["deploy", "--require-approval", "never", ...contextArgs],
      );

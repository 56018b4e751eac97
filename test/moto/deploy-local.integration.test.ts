import { spawn } from "node:child_process";
import { CloudFormationClient, DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/contract/local-identity.js";
import { PROJECT_ROOT } from "../../lib/infra/bundling.js";
import type { SmokeSummary } from "../../lib/local/smoke/smoke-check.js";
import { motoProblem, startMoto } from "./start-moto.js";

/*
 * `npm run deploy:local` and `npm run localstack:smoke` pointed at an endpoint that is not
 * LocalStack: moto, named by its loopback address as a developer would write it. The deploy must
 * reach a stack with every output (moto reads a template URL only on `localhost`, and loses the
 * outputs on the change-set path); the smoke must find that stack by its outputs and submit its
 * events. moto runs no Lambda function without Docker, so the deliveries themselves are checked
 * only by a real LocalStack or AWS: here the smoke reports them unfinished, exit 1, not 2.
 */

/*
 * Always a moto of its own, even under `npm run test:moto`: the run's moto already holds the
 * assets bucket the moto stack test made, and `cdklocal bootstrap` must create it.
 */
let moto: { readonly endpoint: string; stop(): Promise<void> };

/**
 * This process's environment without what the test run sets for its own emulators (per-service
 * endpoints, which win over AWS_ENDPOINT_URL, and Ricochet's resource variables): a developer's
 * shell.
 */
const shellEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("AWS_ENDPOINT_URL") && !name.startsWith("RICOCHET_"),
    ),
  );

/** Runs an npm script in the project with `env` over a developer's shell, collecting its output. */
const npmRun = (args: readonly string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", ...args], {
      cwd: PROJECT_ROOT,
      env: { ...shellEnv(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });

/** What a developer exports to deploy into the emulator at `endpoint`. */
const developerEnv = (): Record<string, string> => ({
  AWS_ENDPOINT_URL: moto.endpoint,
  AWS_REGION: LOCAL_REGION,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
});

beforeAll(async () => {
  const problem = await motoProblem();
  if (problem !== undefined) throw new Error(problem);
  moto = await startMoto();
}, 90_000);

afterAll(async () => {
  await moto?.stop();
});

describe("deploy:local and localstack:smoke against moto", () => {
  it("deploy:local creates the stack with every output, at a loopback address", async () => {
    expect(new URL(moto.endpoint).hostname).toBe("127.0.0.1");

    const deploy = await npmRun(["deploy:local"], developerEnv());

    expect({
      code: deploy.code,
      tail: deploy.code === 0 ? "" : deploy.stderr.slice(-2000),
    }).toEqual({ code: 0, tail: "" });
    const cfn = new CloudFormationClient({
      endpoint: moto.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: "Ricochet" }));
    cfn.destroy();
    expect(Stacks?.[0]?.StackStatus).toMatch(/^(CREATE|UPDATE)_COMPLETE$/);
    expect((Stacks?.[0]?.Outputs ?? []).map((o) => o.OutputKey).sort()).toEqual([
      "DashboardName",
      "DeadLetterQueueUrl",
      "IngressQueueUrl",
      "InternalQueueUrl",
      "OrchestratorFunctionName",
      "RedriveFunctionName",
      "TableName",
    ]);
  }, 300_000);

  it("localstack:smoke --skip-deploy finds that stack by its outputs and submits every scenario", async () => {
    const smoke = await npmRun(
      ["localstack:smoke", "--", "--skip-deploy", "--timeout", "5"],
      developerEnv(),
    );

    // Exit 2 would mean it could not start: no stack, no outputs, no queue to submit to.
    expect({ code: smoke.code, stderr: smoke.code === 1 ? "" : smoke.stderr.slice(-2000) }).toEqual(
      { code: 1, stderr: "" },
    );
    const summary = JSON.parse(smoke.stdout.trim().split("\n").at(-1) ?? "{}") as SmokeSummary;
    expect(summary.ok).toBe(false);
    expect(summary.scenarios.length).toBeGreaterThanOrEqual(3);
  }, 120_000);
});

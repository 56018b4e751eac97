import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CloudFormationClient,
  DescribeStacksCommand,
  type Stack,
} from "@aws-sdk/client-cloudformation";
import { ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/contract/local-identity.js";
import { PROJECT_ROOT } from "../../lib/infra/bundling.js";
import type { SmokeSummary } from "../../lib/local/smoke/smoke-check.js";
import { blockShellLines, codeBlocks } from "../support/document-examples.js";
import { motoProblem, startMoto } from "./start-moto.js";

/*
 * `npm run deploy:local` and `npm run localstack:smoke` pointed at an endpoint that is not
 * LocalStack: moto, named by its loopback address as a developer would write it. The deploy must
 * reach a stack with every output (moto reads a template URL only on `localhost`, and loses the
 * outputs on the change-set path); the smoke must find that stack by its outputs and submit its
 * events. moto runs no Lambda function without Docker, so the deliveries themselves are checked
 * only by a real LocalStack or AWS: here the smoke reports them unfinished, exit 1, not 2.
 * Then docs/deploy.md's loop, read from the doc: its `npx ricochet` steps run as written, from
 * this checkout, against that stack.
 */

/*
 * Always a moto of its own, even under `npm run test:moto`: the run's moto already holds the
 * assets bucket the moto stack test made, and `cdklocal bootstrap` must create it.
 */
let moto: { readonly endpoint: string; stop(): Promise<void> };
/** An npm cache of this file's own: npx keeps a link to the checkout there (see below). */
let npmCache: string;

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

/** Runs a program in the project with `env` over a developer's shell, collecting its output. */
const runInProject = (command: string, args: readonly string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, {
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

/** Runs an npm script in the project, as {@link runInProject} runs a program. */
const npmRun = (args: readonly string[], env: Record<string, string>) =>
  runInProject("npm", ["run", "--silent", ...args], env);

/** What a developer exports to deploy into the emulator at `endpoint`. */
const developerEnv = (): Record<string, string> => ({
  AWS_ENDPOINT_URL: moto.endpoint,
  AWS_REGION: LOCAL_REGION,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
});

/** The LocalStack loop docs/deploy.md gives, as its shell commands by the step numbering them. */
const documentedLoop = (): Map<number, string[]> => {
  const block = codeBlocks().find(
    (b) => b.path === "docs/deploy.md" && b.before.includes("Every step, in order"),
  );
  if (block === undefined) throw new Error("docs/deploy.md gives no LocalStack loop");
  const steps = new Map<number, string[]>();
  let step = 0;
  for (const { command, comment } of blockShellLines(block)) {
    step = Number(/^(\d+)\. /.exec(comment)?.[1] ?? step);
    steps.set(step, [...(steps.get(step) ?? []), command]);
  }
  return steps;
};

/** LocalStack's gateway, as the loop's commands name it; here moto's endpoint takes its place. */
const LOCALSTACK_GATEWAY = "http://localhost:4566";

/**
 * What each command of the loop's steps 5 and 6 shows on moto, in order. The CLI finds the ingress
 * queue, the table and the dead-letter queue from the stack's outputs and talks to each; but no
 * function runs on moto, so nothing is delivered, recorded or dead-lettered, and the redrive finds
 * nothing to move. The deliveries, the retries and the dead-letter copy they show on LocalStack are
 * for a real LocalStack or AWS to check.
 */
const ON_MOTO: readonly {
  readonly command: RegExp;
  readonly code: number;
  readonly output: RegExp;
}[] = [
  { command: /"order-42"[\s\S]* \| npx ricochet submit$/, code: 0, output: /^accepted order-42 / },
  {
    command: /^npx ricochet status order-42$/,
    code: 1,
    output: /^ricochet: no record for event order-42$/,
  },
  { command: /"order-43"[\s\S]* \| npx ricochet submit$/, code: 0, output: /^accepted order-43 / },
  {
    command: /^npx ricochet dlq list$/,
    code: 0,
    output: /^The dead-letter queue has no matching messages\.$/,
  },
  {
    command: /^npx ricochet redrive --event-id order-43 --dry-run$/,
    code: 0,
    output: /^Dry run: 0 would move, 0 skipped, 0 failed\.$/,
  },
  {
    command: /^npx ricochet redrive --event-id order-43 --why "receiver fixed"$/,
    code: 0,
    output: /^0 moved, 0 skipped, 0 failed\.$/,
  },
];

/** The stack deploy:local made in moto, as CloudFormation describes it. */
const deployedStack = async (): Promise<Stack | undefined> => {
  const cfn = new CloudFormationClient({
    endpoint: moto.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: "Ricochet" }));
    return Stacks?.[0];
  } finally {
    cfn.destroy();
  }
};

/** The event ids of the messages on a queue, read (and left in flight) until none arrive. */
const eventIdsOn = async (queueUrl: string): Promise<string[]> => {
  const sqs = new SQSClient({
    endpoint: moto.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const ids: string[] = [];
  try {
    for (;;) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 60,
          WaitTimeSeconds: 1,
        }),
      );
      if (Messages.length === 0) return ids;
      for (const { Body } of Messages) {
        ids.push(String((JSON.parse(Body ?? "{}") as { eventId?: unknown }).eventId));
      }
    }
  } finally {
    sqs.destroy();
  }
};

beforeAll(async () => {
  const problem = await motoProblem();
  if (problem !== undefined) throw new Error(problem);
  moto = await startMoto();
  npmCache = await mkdtemp(join(tmpdir(), "ricochet-npx-cache-"));
}, 90_000);

afterAll(async () => {
  await moto?.stop();
  if (npmCache !== undefined) await rm(npmCache, { recursive: true, force: true });
});

describe("deploy:local and localstack:smoke against moto", () => {
  it("deploy:local creates the stack with every output, at a loopback address", async () => {
    expect(new URL(moto.endpoint).hostname).toBe("127.0.0.1");

    const deploy = await npmRun(["deploy:local"], developerEnv());

    expect({
      code: deploy.code,
      tail: deploy.code === 0 ? "" : deploy.stderr.slice(-2000),
    }).toEqual({ code: 0, tail: "" });
    const stack = await deployedStack();
    expect(stack?.StackStatus).toMatch(/^(CREATE|UPDATE)_COMPLETE$/);
    expect((stack?.Outputs ?? []).map((o) => o.OutputKey).sort()).toEqual([
      "DashboardName",
      "DeadLetterQueueUrl",
      "IngressQueueUrl",
      "InternalQueueUrl",
      "OperatorFunctionName",
      "OrchestratorFunctionName",
      // The operator function's former key, emitted for one more release.
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

  it("runs docs/deploy.md's LocalStack loop as far as moto can: its CLI steps against that stack", async () => {
    const loop = documentedLoop();
    // Steps 1, 4 and 7 need Docker: LocalStack itself, a receiver its Lambda containers reach, the
    // teardown. Step 2 is the deploy the first test ran. Steps 3, 5 and 6 run here.
    expect([...loop.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(loop.get(1)?.[0]).toBe("docker compose up -d");
    expect(loop.get(2)).toEqual(["npm run deploy:local"]);
    expect(loop.get(7)).toContain("docker compose down");
    const exports = (loop.get(3) ?? []).join("\n").replaceAll(LOCALSTACK_GATEWAY, moto.endpoint);
    expect(exports).toContain(`AWS_ENDPOINT_URL=${moto.endpoint}`);

    const results = [];
    for (const command of [...(loop.get(5) ?? []), ...(loop.get(6) ?? [])]) {
      // npx links the checkout into its cache on first use and reuses that link; a cache of its
      // own keeps a link made by an older checkout (one without the `bin`) out of this run.
      const run = await runInProject("bash", ["-c", `${exports}\n${command}`], {
        npm_config_cache: npmCache,
        npm_config_update_notifier: "false",
      });
      results.push({ command, code: run.code, output: `${run.stdout}${run.stderr}`.trim() });
    }

    expect(results).toEqual(
      ON_MOTO.map(({ command, code, output }) => ({
        command: expect.stringMatching(command),
        code,
        output: expect.stringMatching(output),
      })),
    );
    const ingress = (await deployedStack())?.Outputs?.find(
      (o) => o.OutputKey === "IngressQueueUrl",
    );
    expect(await eventIdsOn(ingress?.OutputValue ?? "")).toEqual(
      expect.arrayContaining(["order-42", "order-43"]),
    );
  }, 120_000);
});

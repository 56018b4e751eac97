import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAwsClients } from "../../../lib/adapters/aws-clients.js";
import { createDynamoEventStore } from "../../../lib/adapters/dynamo-event-store.js";
import { ENV } from "../../../lib/contract/environment.js";
import { LOCAL_CREDENTIALS } from "../../../lib/contract/local-identity.js";
import { exited, ROOT, type RunningDev, startDev } from "./dev-process.js";

/*
 * The banner's "In another shell" lines, run as a newcomer would paste them into a fresh shell
 * (bash, nothing exported but PATH and HOME) with the machine's Python `aws` CLI (1.x): what a
 * shell or Python producer needs must be there, and each line must work as printed.
 */
let dev: RunningDev;

beforeAll(async () => {
  dev = await startDev(["--no-demo"]);
}, 120_000);

afterAll(async () => {
  if (dev !== undefined) {
    dev.child.kill("SIGINT");
    await exited(dev.child);
  }
});

/** The banner's shell lines, `npx ricochet` run from this checkout (no build needed). */
const bannerShellLines = (banner: string): string[] => {
  const block = banner.split("In another shell:\n")[1]?.split("\n\n")[0] ?? "";
  return block
    .split("\n")
    .map((line) => line.trim())
    .map((line) => line.replace(/^npx ricochet /, `node ${join(ROOT, "bin", "ricochet.js")} `));
};

const bash = (script: string, cwd: string): Promise<{ code: number; out: string }> =>
  new Promise((resolve) => {
    execFile(
      "bash",
      ["-euo", "pipefail", "-c", script],
      { cwd, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" }, timeout: 90_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), out: stdout + stderr }),
    );
  });

describe("npm start before its banner (issue #36)", () => {
  it("says each start-up step on stderr as it happens, in the order they happen", () => {
    const steps = [
      /\] starting fauxqs \(SQS\) and DynamoDB Local in the background\n/,
      /\] synthesizing the CDK template/,
      /\] template synthesized: \d+ resources\n/,
      /\] SQS answers at http:\/\/127\.0\.0\.1:\d+, DynamoDB at http:\/\/127\.0\.0\.1:\d+\n/,
      /\] created the template's 3 queues and 1 table\n/,
      /\] orchestrator polling 2 queues/,
    ];
    const stderr = dev.stderr();
    const at = steps.map((step) => stderr.search(step));
    expect(
      at.every((index) => index >= 0),
      stderr,
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    // Every step line leads with the seconds since the start began.
    expect(
      stderr
        .split("\n")
        .filter((l) => l.includes("] "))
        .every((l) => /^\[ *\d+\.\d s\] /.test(l)),
    ).toBe(true);
  });
});

describe("the npm start banner's commands for another shell", () => {
  it("export what the aws CLI needs, and submit by the ricochet CLI and by aws sqs", async () => {
    const lines = bannerShellLines(dev.banner);
    expect(lines.some((l) => l.startsWith("export AWS_DEFAULT_REGION="))).toBe(true);
    expect(lines.some((l) => l.startsWith("aws sqs send-message"))).toBe(true);
    const cwd = await mkdtemp(join(tmpdir(), "ricochet-banner-"));
    // Then what a shell producer goes on to do with no more flags than the banner taught.
    const script = [
      ...lines,
      `aws sqs get-queue-attributes --endpoint-url "$AWS_ENDPOINT_URL_SQS" --queue-url "$${ENV.INGRESS_QUEUE_URL}" --attribute-names All > /dev/null`,
      `aws dynamodb describe-table --table-name "$${ENV.TABLE_NAME}" --query Table.TableStatus`,
    ].join("\n");

    const { code, out } = await bash(script, cwd);
    expect(out).toMatch(/accepted hello-1/);
    expect(out).toMatch(/"MessageId"/);
    expect(out).toContain('"ACTIVE"');
    expect(code).toBe(0);

    const clients = createAwsClients({
      endpoints: {
        sqs: dev.exports.AWS_ENDPOINT_URL_SQS,
        dynamodb: dev.exports.AWS_ENDPOINT_URL_DYNAMODB,
      },
      region: dev.exports.AWS_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    try {
      const store = createDynamoEventStore({
        doc: clients.documents,
        tableName: dev.exports[ENV.TABLE_NAME] ?? "",
      });
      expect(await store.get("hello-1")).toBeDefined();
    } finally {
      clients.destroy();
    }
  }, 120_000);
});

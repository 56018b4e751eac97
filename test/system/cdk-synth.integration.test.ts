import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const outDir = await mkdtemp(join(tmpdir(), "ricochet-synth-"));

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

/*
 * The CLI path users take (`npx cdk synth`), not only the in-process synthesis the other infra
 * tests use: cdk.json, the app entry and local esbuild bundling without Docker.
 */
describe("npx cdk synth", () => {
  it("synthesizes the Ricochet stack without Docker and with cdk-nag clean", async () => {
    const { stderr } = await run("npx", ["cdk", "synth", "--quiet", "--output", outDir], {
      cwd: process.cwd(),
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: "1", CDK_DOCKER: "/nonexistent/docker" },
      timeout: 240_000,
    });
    const template = JSON.parse(await readFile(join(outDir, "Ricochet.template.json"), "utf8")) as {
      Resources: Record<string, { Type: string }>;
    };
    const types = Object.values(template.Resources).map((resource) => resource.Type);

    expect(types.filter((type) => type === "AWS::SQS::Queue")).toHaveLength(3);
    expect(types.filter((type) => type === "AWS::Lambda::EventSourceMapping")).toHaveLength(2);
    expect(stderr).not.toMatch(/docker/i);
  }, 300_000);
});

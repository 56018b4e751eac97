import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConsumerApp, inApp, removeConsumerApp } from "../../support/consumer-app.js";
import {
  CHECKED_NODES,
  checkedNodeBinary,
  LAMBDA_NODE_VERSION,
} from "../../support/lambda-node.js";
import { packedPackage, tarballFiles } from "../../support/packed-package.js";

/*
 * Ricochet as a stranger gets it: `npm pack`ed, unpacked into a CDK app made by `cdk init app
 * --language typescript`, with only what such an app has installed (no esbuild, no Docker, no
 * emulators, no cdk-nag, no lock file of Ricochet's). The first run packs (most of a minute);
 * later runs reuse the tarball until a file the package is built from changes.
 */

interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}

let tarball: string;
let appDir: string;

beforeAll(async () => {
  tarball = await packedPackage();
  appDir = await createConsumerApp(tarball);
}, 400_000);

afterAll(async () => {
  if (appDir !== undefined) await removeConsumerApp(appDir);
});

describe("the packed package", () => {
  it("ships the built entry points, the function bundles and the CLI, and no tests, bench or CI", async () => {
    const files = await tarballFiles(tarball);

    expect(files).toEqual(
      expect.arrayContaining([
        "package.json",
        "dist/lib/index.js",
        "dist/lib/index.d.ts",
        "dist/lib/receiver.d.ts",
        "dist/lib/infra/index.d.ts",
        "dist/functions/orchestrator/index.mjs",
        "dist/functions/operator/index.mjs",
        "dist/bin/ricochet.mjs",
        "bin/ricochet.js",
      ]),
    );
    expect(files.filter((file) => /^(test|bench|\.ci|functions|scripts)\//.test(file))).toEqual([]);
    // No TypeScript source: the `bin` launcher runs dist/ only when bin/ricochet.ts is absent.
    expect(files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([]);
  });
});

describe("a new CDK app with the packed package installed", () => {
  it("type-checks (its cdk.json runs tsc first) and synthesizes a RetryOrchestrator whose functions deploy the package's pre-built bundles and carry its per-target settings", async () => {
    await inApp(appDir, "npx", ["cdk", "synth", "--quiet", "--output", "cdk.out"]);

    const out = join(appDir, "cdk.out");
    const template = JSON.parse(
      await readFile(join(out, "ConsumerAppStack.template.json"), "utf8"),
    ) as { Resources: Record<string, CfnResource> };
    const resources = Object.entries(template.Resources);
    const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);
    expect(ofType("AWS::SQS::Queue")).toHaveLength(3);
    expect(ofType("AWS::DynamoDB::Table")).toHaveLength(1);
    expect(ofType("AWS::Lambda::EventSourceMapping")).toHaveLength(2);

    const functions = ofType("AWS::Lambda::Function");
    expect(functions).toHaveLength(2);
    // The operator function keeps its construct id, Redrive, so that a deployed one is not replaced.
    for (const [constructId, name] of [
      ["orchestrator", "orchestrator"],
      ["redrive", "operator"],
    ] as const) {
      const [, fn] =
        functions.find(([id]) => id.toLowerCase().startsWith(`retries${constructId}`)) ?? [];
      expect(fn?.Properties).toMatchObject({ Handler: "index.handler", Runtime: "nodejs24.x" });
      const assetDir = String(fn?.Metadata?.["aws:asset:path"]);
      const [deployed, shipped] = await Promise.all([
        readFile(join(out, assetDir, "index.mjs")),
        readFile(join(appDir, "node_modules", "ricochet", "dist", "functions", name, "index.mjs")),
      ]);
      expect({ name, same: deployed.equals(shipped) }).toEqual({ name, same: true });
    }

    const [, orchestrator] =
      functions.find(([id]) => id.toLowerCase().startsWith("retriesorchestrator")) ?? [];
    const { Variables: env } = (orchestrator?.Properties?.Environment ?? { Variables: {} }) as {
      Variables: Record<string, unknown>;
    };
    expect(JSON.parse(String(env.RICOCHET_CIRCUIT_BREAKER))).toMatchObject({ openMs: 60_000 });
    expect(JSON.parse(String(env.RICOCHET_TARGETS))).toEqual({
      defaults: { maxConcurrentCalls: 50 },
      overrides: { "group:tenant-42": { maxCallsPerSecond: 5, failureRateThreshold: 0.25 } },
      groups: {
        "tenant-42": [
          "http:https://hooks.example.com:443",
          "http:https://eu.hooks.example.com:443",
        ],
      },
    });
    expect(env.RICOCHET_TARGET_METRICS).toBe("group:tenant-42");
    expect(env.RICOCHET_ADAPTIVE_LIMITS).toBe("on");
    const alarms = ofType("AWS::CloudWatch::Alarm").map(([, alarm]) => alarm.Properties);
    expect(alarms).toContainEqual(
      expect.objectContaining({ MetricName: "breaker_open_age", Threshold: 1_200_000 }),
    );
  }, 300_000);
});

describe("a misspelt prop in the app", () => {
  it("fails with the prop meant, as a ConfigurationError the app imports from ricochet/infra", async () => {
    // Props read from a file or spread from an object escape TypeScript's excess-property check.
    const script = `
      import { App, Stack } from "aws-cdk-lib";
      import { ConfigurationError, RetryOrchestrator } from "ricochet/infra";
      const props = JSON.parse('{ "maxConcurency": 5 }');
      try {
        new RetryOrchestrator(new Stack(new App(), "Misspelt"), "Retries", props);
        console.log(JSON.stringify({ thrown: false }));
      } catch (error) {
        const configuration = error instanceof ConfigurationError;
        console.log(JSON.stringify({ thrown: true, configuration, message: String(error) }));
      }
    `;
    await writeFile(join(appDir, "misspelt.ts"), script);
    const { stdout } = await inApp(appDir, "npx", ["tsx", "misspelt.ts"]);

    expect(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}")).toEqual({
      thrown: true,
      configuration: true,
      message: expect.stringContaining(
        "maxConcurency: is not a recognized field; did you mean maxConcurrency?",
      ),
    });
  }, 120_000);
});

/*
 * The CLI on each Node.js line checked: the development Node (the `engines` floor here) and the
 * Lambda runtime's Node.js 24, which teams that deploy on it run their tools on too.
 */
describe.each(CHECKED_NODES)("npx ricochet in the app, on the %s Node.js", (which) => {
  let node: string;

  beforeAll(async () => {
    node = await checkedNodeBinary(which);
  }, 300_000);

  it("runs on that Node.js", async () => {
    const { stdout } = await inApp(appDir, "node", ["--version"], { node });

    console.info(`npx ricochet in the app runs on Node.js ${stdout.trim()} (${which})`);
    expect(stdout.trim()).toBe(which === "lambda" ? `v${LAMBDA_NODE_VERSION}` : process.version);
  });

  it("runs npx ricochet --help", async () => {
    const { stdout } = await inApp(appDir, "npx", ["ricochet", "--help"], { node });

    expect(stdout).toMatch(/^Usage: ricochet /);
    for (const command of [
      "submit",
      "status",
      "events",
      "dlq",
      "redrive",
      "cancel",
      "replay",
      "targets",
      "console",
      "policy",
      "dev",
    ]) {
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    }
  }, 60_000);

  it("runs npx ricochet policy explain --json", async () => {
    const { stdout } = await inApp(appDir, "npx", ["ricochet", "policy", "explain", "--json"], {
      node,
    });

    const explained = JSON.parse(stdout) as { policy: { maxAttempts: number }; retries: unknown[] };
    expect(explained.policy.maxAttempts).toBe(8);
    expect(explained.retries).toHaveLength(7);
  }, 60_000);

  it("says which packages ricochet dev needs, in one line, when they are not installed", async () => {
    const failed = await inApp(appDir, "npx", ["ricochet", "dev"], { node }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );

    expect(failed?.code).toBe(2);
    expect(failed?.stderr?.trim().split("\n")).toEqual([
      expect.stringMatching(/^ricochet: ricochet dev needs .*npm install --save-dev .*fauxqs/),
    ]);
  }, 60_000);
});

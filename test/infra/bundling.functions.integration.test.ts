import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { ENV } from "../../lib/contract/environment.js";
import { esbuildOptions, type FunctionName, PROJECT_ROOT } from "../../lib/infra/bundling.js";

/*
 * The functions as the construct bundles them: which AWS SDK packages their cold start loads.
 * Every SDK client package costs tens of milliseconds to load, so only the ones every invocation
 * needs may be imported statically; the rest are loaded on first use. The orchestrator imports
 * none statically: its hot-path packages are required by its first batch
 * (`lib/adapters/aws-sdk-modules.ts`), which the next test checks by running the bundle.
 */
const sdkImports = async (name: FunctionName) => {
  const result = await build({ ...esbuildOptions(name), write: false, metafile: true });
  const [bundle] = Object.values(result.metafile.outputs).filter((output) => output.entryPoint);
  if (bundle === undefined) throw new Error(`esbuild wrote no bundle for ${name}`);
  const packages = (kind: string) =>
    [
      ...new Set(
        bundle.imports
          .filter((entry) => entry.external && entry.kind === kind)
          .map((entry) => entry.path)
          .filter((path) => path.startsWith("@aws-sdk/")),
      ),
    ].sort();
  return { atStart: packages("import-statement"), onFirstUse: packages("dynamic-import") };
};

describe("function bundles", () => {
  it("start the orchestrator without importing any SDK package; Lambda, Secrets Manager and SSM load on first use", async () => {
    const { atStart, onFirstUse } = await sdkImports("orchestrator");

    expect(atStart).toEqual([]);
    expect(onFirstUse).toEqual(
      expect.arrayContaining([
        "@aws-sdk/client-lambda",
        "@aws-sdk/client-secrets-manager",
        "@aws-sdk/client-ssm",
      ]),
    );
  });

  it("start the operator function without the Lambda, CloudFormation, Secrets Manager, SSM or STS clients", async () => {
    const { atStart, onFirstUse } = await sdkImports("operator");

    // STS names the caller of the first move: a dry run or an empty queue never loads it.
    expect(onFirstUse).toContain("@aws-sdk/client-sts");
    for (const lazy of ["lambda", "cloudformation", "secrets-manager", "ssm", "sts"]) {
      expect(atStart).not.toContain(`@aws-sdk/client-${lazy}`);
    }
  });

  it("load the orchestrator's SDK packages with its first batch, not at import", async () => {
    // Inside the project, so the bundle's SDK requires resolve from its node_modules as in Lambda.
    const scratch = join(PROJECT_ROOT, ".ricochet");
    mkdirSync(scratch, { recursive: true });
    const outdir = mkdtempSync(join(scratch, "function-bundle-"));
    try {
      await build({ ...esbuildOptions("orchestrator"), outdir, outExtension: { ".js": ".mjs" } });
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--input-type=module", "-e", LOADED_SDK_PACKAGES],
        {
          env: {
            PATH: process.env.PATH,
            AWS_REGION: "us-east-1",
            [ENV.TABLE_NAME]: "bundle-test",
            [ENV.INGRESS_QUEUE_URL]: "http://127.0.0.1:1/000000000000/bundle-test",
            [ENV.INTERNAL_QUEUE_URL]: "http://127.0.0.1:1/000000000000/bundle-test-internal",
            [ENV.DEAD_LETTER_QUEUE_URL]: "http://127.0.0.1:1/000000000000/bundle-test-dlq",
            BUNDLE_URL: pathToFileURL(join(outdir, "orchestrator.mjs")).href,
          },
        },
      );
      const loaded = JSON.parse(stdout) as { afterImport: string[]; afterFirstBatch: string[] };

      expect(loaded.afterImport).toEqual([]);
      expect(loaded.afterFirstBatch).toEqual(
        expect.arrayContaining(["client-dynamodb", "client-sqs", "lib-dynamodb"]),
      );
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});

/**
 * Run in a fresh Node process: imports the bundle, then hands it an empty batch (no AWS call),
 * and prints which `@aws-sdk/*` packages Node's module cache holds after each step.
 */
const LOADED_SDK_PACKAGES = `
import { createRequire } from "node:module";
const cache = createRequire(import.meta.url).cache;
const sdkPackages = () => [...new Set(Object.keys(cache)
  .map((path) => /[\\/]@aws-sdk[\\/]([^\\/]+)/.exec(path)?.[1])
  .filter((name) => name !== undefined))].sort();
const { handler } = await import(process.env.BUNDLE_URL);
const afterImport = sdkPackages();
const response = await handler({ Records: [] }, { getRemainingTimeInMillis: () => 60000 });
if (response.batchItemFailures.length !== 0) throw new Error("an empty batch reported failures");
process.stdout.write(JSON.stringify({ afterImport, afterFirstBatch: sdkPackages() }));
`;

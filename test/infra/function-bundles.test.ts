import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { esbuildOptions, type FunctionName } from "../../lib/infra/bundling.js";

/*
 * The functions as the construct bundles them: which AWS SDK packages their cold start loads.
 * Every SDK client package costs tens of milliseconds to load, so only the ones every invocation
 * needs may be imported statically; the rest are loaded on first use.
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
  it("start the orchestrator with the SQS and DynamoDB packages only; Lambda, Secrets Manager and SSM load on first use", async () => {
    const { atStart, onFirstUse } = await sdkImports("orchestrator");

    expect(atStart).toEqual([
      "@aws-sdk/client-dynamodb",
      "@aws-sdk/client-sqs",
      "@aws-sdk/lib-dynamodb",
      "@aws-sdk/util-dynamodb",
    ]);
    expect(onFirstUse).toEqual(
      expect.arrayContaining([
        "@aws-sdk/client-lambda",
        "@aws-sdk/client-secrets-manager",
        "@aws-sdk/client-ssm",
      ]),
    );
  });

  it("start the redrive function without the Lambda, CloudFormation, Secrets Manager or SSM clients", async () => {
    const { atStart } = await sdkImports("redrive");

    for (const lazy of ["lambda", "cloudformation", "secrets-manager", "ssm"]) {
      expect(atStart).not.toContain(`@aws-sdk/client-${lazy}`);
    }
  });
});

import { existsSync } from "node:fs";
import { join } from "node:path";
import { Code, type FunctionProps, Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import type { Construct } from "constructs";
import { runsCompiled } from "../contract/package-layout.js";
import { ConfigurationError } from "../core/errors.js";
import {
  BUNDLE_FILE,
  entryPath,
  type FunctionName,
  nodejsBundling,
  PROJECT_ROOT,
  prebuiltBundleDir,
} from "./bundling.js";

/** A function's props, less what this module decides: its code and handler. */
export type RicochetFunctionProps = Omit<FunctionProps, "code" | "handler">;

/**
 * One of Ricochet's Lambda functions, with the code the construct runs from:
 *
 * - installed from the package (compiled JavaScript), the bundle `npm run build` wrote into the
 *   package, deployed as is with `Code.fromAsset`: a user's `cdk synth` needs neither esbuild nor
 *   Docker nor a lock file (npm never packs one), and what is deployed is the bundle that was
 *   tested;
 * - from this repository's TypeScript sources, a `NodejsFunction` that bundles the entry with the
 *   same esbuild options at synth, so a change to `lib/` is deployed without a build step.
 *
 * @throws ConfigurationError when run compiled and the package has no bundle for `name`.
 */
export const createRicochetFunction = (
  scope: Construct,
  id: string,
  name: FunctionName,
  props: RicochetFunctionProps,
): LambdaFunction => {
  if (runsCompiled(import.meta.url)) {
    const dir = prebuiltBundleDir(name);
    if (!existsSync(join(dir, BUNDLE_FILE))) {
      throw new ConfigurationError(
        `the ricochet package has no pre-built ${name} function at ${dir}; reinstall it, or run \`npm run build\` in a checkout`,
      );
    }
    return new LambdaFunction(scope, id, {
      ...props,
      code: Code.fromAsset(dir),
      handler: `${BUNDLE_FILE.replace(/\.mjs$/, "")}.handler`,
    });
  }
  return new NodejsFunction(scope, id, {
    ...props,
    entry: entryPath(name),
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: join(PROJECT_ROOT, "package-lock.json"),
    handler: "handler",
    bundling: nodejsBundling(),
  });
};

import { join } from "node:path";
import { type BundlingOptions, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import type { BuildOptions } from "esbuild";
import { packageRootOf } from "../contract/package-layout.js";

/**
 * How Ricochet's Lambda functions are bundled: one description, read by the CDK construct (through
 * {@link nodejsBundling}, when it runs from source) and by `npm run build`, which writes the
 * bundles the package ships (through {@link esbuildOptions}), so both paths deploy the same code.
 */

/** The package root, where `package.json`, `functions/` and, once built, `dist/` live. */
export const PROJECT_ROOT = packageRootOf(import.meta.url);

/** The Lambda entry points, relative to {@link PROJECT_ROOT}. */
export const FUNCTION_ENTRIES = {
  orchestrator: "functions/orchestrator.ts",
  operator: "functions/operator.ts",
} as const;
export type FunctionName = keyof typeof FUNCTION_ENTRIES;

/** Absolute path of a function's entry file. */
export const entryPath = (name: FunctionName): string => join(PROJECT_ROOT, FUNCTION_ENTRIES[name]);

/** The file name of a bundle, as `NodejsFunction` names it for ESM output; its handler is `index.handler`. */
export const BUNDLE_FILE = "index.mjs";

/**
 * The directory of a function's pre-built bundle ({@link BUNDLE_FILE} and its source map), written
 * by `npm run build` and shipped in the package, so a user's `cdk synth` bundles nothing.
 */
export const prebuiltBundleDir = (name: FunctionName): string =>
  join(PROJECT_ROOT, "dist", "functions", name);

/**
 * Modules left out of the bundle. The nodejs24.x runtime ships AWS SDK v3, so bundling it would
 * only grow the package and the cold start; the Powertools packages are not in the runtime and
 * are bundled.
 */
export const EXTERNAL_MODULES: readonly string[] = ["@aws-sdk/*"];

/** esbuild's name for the Node.js version of `Runtime.NODEJS_24_X`. */
const BUNDLE_TARGET = "node24";

/*
 * ESM output cannot call `require`, yet some CommonJS dependencies do (for Node built-ins);
 * defining it from `createRequire` keeps them working inside the ESM bundle.
 */
export const REQUIRE_BANNER =
  "import { createRequire as __ricochetCreateRequire } from 'node:module'; const require = __ricochetCreateRequire(import.meta.url);";

/** ESM-first resolution, so dependencies that ship both formats contribute their ESM build. */
const MAIN_FIELDS = ["module", "main"];

/** Bundling options for `NodejsFunction`: local esbuild, never Docker. */
export const nodejsBundling = (): BundlingOptions => ({
  format: OutputFormat.ESM,
  mainFields: [...MAIN_FIELDS],
  banner: REQUIRE_BANNER,
  target: BUNDLE_TARGET,
  minify: true,
  sourceMap: true,
  externalModules: [...EXTERNAL_MODULES],
  forceDockerBundling: false,
});

/** The same bundling as {@link nodejsBundling}, as options for esbuild's `build` API. */
export const esbuildOptions = (name: FunctionName): BuildOptions => ({
  entryPoints: [entryPath(name)],
  bundle: true,
  platform: "node",
  format: "esm",
  mainFields: [...MAIN_FIELDS],
  banner: { js: REQUIRE_BANNER },
  target: BUNDLE_TARGET,
  minify: true,
  sourcemap: true,
  external: [...EXTERNAL_MODULES],
});

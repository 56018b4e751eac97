/**
 * Prints the size of each Lambda bundle, built exactly as the CDK construct builds it (the options
 * come from lib/infra/bundling.ts). The AWS SDK v3 is external, because the nodejs24.x runtime
 * provides it; everything else, Powertools included, is in the bundle.
 *
 *   npm run bundle-sizes            # a table
 *   npm run bundle-sizes -- --json  # one JSON object
 */
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import {
  EXTERNAL_MODULES,
  esbuildOptions,
  FUNCTION_ENTRIES,
  type FunctionName,
} from "../lib/infra/bundling.js";

interface BundleSize {
  readonly bytes: number;
  readonly gzipBytes: number;
}

const measure = async (name: FunctionName): Promise<BundleSize> => {
  const result = await build({ ...esbuildOptions(name), write: false, outdir: "out" });
  // The source map is shipped beside the bundle but never loaded unless a stack trace needs it.
  const code = result.outputFiles.find((file) => !file.path.endsWith(".map"));
  if (code === undefined) throw new Error(`esbuild produced no bundle for ${name}`);
  return { bytes: code.contents.byteLength, gzipBytes: gzipSync(code.contents).byteLength };
};

const names = Object.keys(FUNCTION_ENTRIES) as FunctionName[];
const sizes = Object.fromEntries(
  await Promise.all(names.map(async (name) => [name, await measure(name)] as const)),
) as Record<FunctionName, BundleSize>;

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ external: EXTERNAL_MODULES, functions: sizes }));
} else {
  console.log(`external (provided by the nodejs24.x runtime): ${EXTERNAL_MODULES.join(", ")}`);
  console.table(
    Object.fromEntries(
      names.map((name) => [
        name,
        { entry: FUNCTION_ENTRIES[name], bytes: sizes[name].bytes, gzip: sizes[name].gzipBytes },
      ]),
    ),
  );
}

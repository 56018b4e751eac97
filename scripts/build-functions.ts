/**
 * Writes the Lambda bundles the package ships (`dist/functions/<name>/index.mjs` and its source
 * map), with the options the construct bundles with from source (lib/infra/bundling.ts). The
 * construct deploys them as they are when it runs from the package: see lib/infra/ricochet-function.ts.
 *
 *   npm run build   # runs this after tsc
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { build } from "esbuild";
import {
  BUNDLE_FILE,
  esbuildOptions,
  FUNCTION_ENTRIES,
  type FunctionName,
  prebuiltBundleDir,
} from "../lib/infra/bundling.js";

const names = Object.keys(FUNCTION_ENTRIES) as FunctionName[];
await Promise.all(
  names.map(async (name) => {
    const dir = prebuiltBundleDir(name);
    // A stale file left in the directory would be deployed with the asset.
    await rm(dir, { recursive: true, force: true });
    await build({ ...esbuildOptions(name), outfile: join(dir, BUNDLE_FILE) });
    process.stdout.write(`built ${name} → ${dir}\n`);
  }),
);

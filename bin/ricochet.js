#!/usr/bin/env node
// The `ricochet` command, package.json's `bin`. In a checkout, where the TypeScript sources sit
// beside this file, it runs them through tsx: `npm ci` is all `npx ricochet` needs there, and an
// old dist/ from an earlier build is never run in their place. The packed package ships no `.ts`
// (only dist/ and this file), so an installed copy runs the bundle dist/bin/ricochet.mjs, and
// needs no tsx.
import { existsSync } from "node:fs";

/** tsx, or one line saying what to run: a checkout installed without its devDependencies. */
const loadTsx = async () => {
  try {
    return await import("tsx/esm/api");
  } catch (error) {
    if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
    process.stderr.write(
      "ricochet: this checkout runs its TypeScript sources through tsx, which is not installed; " +
        "run `npm ci` (with devDependencies) first\n",
    );
    process.exit(1);
  }
};

if (existsSync(new URL("./ricochet.ts", import.meta.url))) {
  const { register } = await loadTsx();
  register();
  await import("./ricochet.ts");
} else {
  await import("../dist/bin/ricochet.mjs");
}

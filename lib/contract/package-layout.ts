import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "ricochet";

const isRicochetManifest = (path: string): boolean => {
  try {
    const manifest: unknown = JSON.parse(readFileSync(path, "utf8"));
    return typeof manifest === "object" && manifest !== null && "name" in manifest
      ? manifest.name === PACKAGE_NAME
      : false;
  } catch {
    return false;
  }
};

/**
 * The directory holding Ricochet's own `package.json`, found by walking up from a module's URL.
 *
 * A module sits at a different depth when run from source (`lib/infra/x.ts`) and when built
 * (`dist/lib/infra/x.js`), so a fixed `../../` would point into `dist/` once built; walking up to
 * the manifest works from both, in this repository and inside a user's `node_modules`.
 * @throws Error when no ancestor directory holds Ricochet's manifest.
 */
export const packageRootOf = (moduleUrl: string): string => {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    if (isRicochetManifest(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no ${PACKAGE_NAME} package.json above ${moduleUrl}`);
    dir = parent;
  }
};

/** Ricochet's version, from its `package.json`. */
export const packageVersion = (): string => {
  const manifest = JSON.parse(
    readFileSync(join(packageRootOf(import.meta.url), "package.json"), "utf8"),
  ) as { version?: unknown };
  return String(manifest.version);
};

/**
 * Whether a module runs compiled (from `dist/`, as installed from the package: tsc's `.js` or the
 * CLI's bundled `.mjs`) rather than from its TypeScript source through tsx (this repository's
 * tests and `npm start`).
 */
export const runsCompiled = (moduleUrl: string): boolean =>
  !fileURLToPath(moduleUrl).endsWith(".ts");

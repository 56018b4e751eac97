import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdir, readFile, rename } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../lib/infra/bundling.js";
import { cachedDirectory } from "./cached-directory.js";

const run = promisify(execFile);

/**
 * What goes into the package: a change to any of these makes a new tarball. Everything else
 * (tests, docs aside, bench) cannot change what `npm pack` builds.
 */
const PACKAGE_INPUTS = ["lib", "bin", "functions", "scripts", "schema", "docs"];
const PACKAGE_FILES = ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"];

/** Packed tarballs, by content hash. Outside node_modules, which may be shared with a checkout. */
const PACKAGE_CACHE = join(tmpdir(), "ricochet-package-cache");

const filesUnder = async (dir: string): Promise<string[]> => {
  const entries = await readdir(join(PROJECT_ROOT, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(PROJECT_ROOT, join(entry.parentPath, entry.name)))
    .sort();
};

/** A hash of every file the build reads, so a cached tarball is reused only when it is current. */
const packageInputsHash = async (): Promise<string> => {
  const hash = createHash("sha256");
  const files = [...PACKAGE_FILES, ...(await Promise.all(PACKAGE_INPUTS.map(filesUnder))).flat()];
  for (const file of files) {
    hash
      .update(file)
      .update("\0")
      .update(await readFile(join(PROJECT_ROOT, file)));
  }
  return hash.digest("hex").slice(0, 16);
};

/**
 * The package as `npm pack` makes it (its `prepack` builds dist/), cached by the hash of its
 * inputs: packing takes most of a minute here, and only a change to the package's inputs needs a
 * new one.
 * @returns the tarball's path.
 */
export const packedPackage = async (): Promise<string> => {
  const entry = await cachedDirectory(
    join(PACKAGE_CACHE, await packageInputsHash()),
    async (scratch) => {
      await run("npm", ["pack", "--pack-destination", scratch], {
        cwd: PROJECT_ROOT,
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      // The build's own output shares stdout with npm's report, so find the tarball on disk.
      const [packed] = (await readdir(scratch)).filter((name) => name.endsWith(".tgz"));
      if (packed === undefined) throw new Error("npm pack wrote no tarball");
      await rename(join(scratch, packed), join(scratch, "ricochet.tgz"));
    },
  );
  return join(entry, "ricochet.tgz");
};

/** The paths inside a tarball, without npm's `package/` prefix. */
export const tarballFiles = async (tarball: string): Promise<string[]> => {
  const { stdout } = await run("tar", ["-tzf", tarball], { maxBuffer: 16 * 1024 * 1024 });
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^package\//, ""));
};

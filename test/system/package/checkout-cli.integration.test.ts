import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../lib/infra/bundling.js";
import { CHECKED_NODES, checkedNodeBinary, pathWithNode } from "../../support/lambda-node.js";

/*
 * `npx ricochet …` as the docs have a developer run it in a clone: after `npm ci`, with no
 * `npm run build`, so no dist/. npx finds the command through package.json's `bin` (it links the
 * project itself into its cache), so the `bin` must name a file a checkout has. The clone here is
 * every file git would check out (the tracked ones and new ones not ignored), with this
 * repository's node_modules linked in place of `npm ci`.
 */

const run = promisify(execFile);

let scratch: string;
let checkout: string;

/** The files a fresh clone of this working tree would hold, ignored ones (dist/) excluded. */
const checkedOutFiles = async (): Promise<string[]> => {
  const { stdout } = await run(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    { cwd: PROJECT_ROOT, maxBuffer: 16 << 20 },
  );
  return stdout.split("\0").filter((file) => file !== "" && existsSync(join(PROJECT_ROOT, file)));
};

/**
 * `npx ricochet …` in the clone, offline, with an npm cache of its own (npx writes a link there),
 * on the PATH's Node.js or `node`.
 */
const npxRicochet = (args: readonly string[], node?: string) =>
  run("npx", ["ricochet", ...args], {
    cwd: checkout,
    env: {
      PATH: node === undefined ? process.env.PATH : pathWithNode(node),
      HOME: process.env.HOME,
      npm_config_cache: join(scratch, "npm-cache"),
      npm_config_offline: "true",
      npm_config_update_notifier: "false",
    },
    timeout: 60_000,
  });

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "ricochet-checkout-"));
  checkout = join(scratch, "ricochet");
  for (const file of await checkedOutFiles()) {
    await mkdir(dirname(join(checkout, file)), { recursive: true });
    await copyFile(join(PROJECT_ROOT, file), join(checkout, file));
  }
  await symlink(await realpath(join(PROJECT_ROOT, "node_modules")), join(checkout, "node_modules"));
}, 60_000);

afterAll(async () => {
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

describe("npx ricochet in a checkout", () => {
  it.each(CHECKED_NODES)(
    "runs after npm ci alone, with no dist/ built, on the %s Node.js",
    async (which) => {
      expect(existsSync(join(checkout, "dist"))).toBe(false);

      const { stdout } = await npxRicochet(["--help"], await checkedNodeBinary(which));

      expect(stdout).toMatch(/^Usage: ricochet /);
    },
    300_000,
  );

  it("runs the sources, not a dist/ built before they changed", async () => {
    const stale = join(checkout, "dist", "bin", "ricochet.mjs");
    await mkdir(dirname(stale), { recursive: true });
    await writeFile(stale, 'console.log("stale build"); process.exit(3);\n');

    const { stdout } = await npxRicochet(["--help"]);

    expect(stdout).toMatch(/^Usage: ricochet /);
  }, 60_000);

  it("says in one line to run npm ci when the checkout has no tsx", async () => {
    const bare = join(scratch, "without-tsx");
    await mkdir(join(bare, "bin"), { recursive: true });
    await copyFile(join(checkout, "bin", "ricochet.js"), join(bare, "bin", "ricochet.js"));
    await writeFile(join(bare, "bin", "ricochet.ts"), "");

    const ran = await run(process.execPath, [join(bare, "bin", "ricochet.js"), "--help"]).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );

    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      "ricochet: this checkout runs its TypeScript sources through tsx, which is not installed; " +
        "run `npm ci` (with devDependencies) first\n",
    );
  }, 60_000);
});

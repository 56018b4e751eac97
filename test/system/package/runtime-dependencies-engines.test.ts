import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../lib/infra/bundling.js";

/*
 * The package promises the Node.js lines its `engines` names, and the lock file holds the versions
 * `npm ci` installs. The AWS SDK's releases from January 2027 need Node.js 22: locking one while
 * `engines` still admits Node.js 20 would break the CLI and console on the Node it promises. This
 * keeps the two in step: move `engines` forward, or keep the lock below such releases.
 */

interface LockedPackage {
  readonly dev?: boolean;
  readonly devOptional?: boolean;
  readonly peer?: boolean;
  readonly version?: string;
  /** An object in today's lock files; very old packages wrote an array npm ignores. */
  readonly engines?: { readonly node?: string };
}

const readJson = <T>(file: string): T =>
  JSON.parse(readFileSync(join(PROJECT_ROOT, file), "utf8")) as T;

describe("the locked runtime dependencies", () => {
  it("each run on every Node.js the package's engines admit", () => {
    const floor = readJson<{ engines: { node: string } }>("package.json").engines.node;
    const locked = readJson<{ packages: Record<string, LockedPackage> }>("package-lock.json");

    const narrower = Object.entries(locked.packages)
      .filter(([path, entry]) => path !== "" && !entry.dev && !entry.devOptional && !entry.peer)
      .flatMap(([path, entry]) => {
        const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return node === undefined || semver.subset(floor, node, { loose: true })
          ? []
          : [`${path.replace(/^.*node_modules\//, "")}@${entry.version} needs Node.js ${node}`];
      });

    expect({ engines: floor, narrower }).toEqual({ engines: floor, narrower: [] });
  });
});

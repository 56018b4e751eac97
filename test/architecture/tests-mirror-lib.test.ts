import { existsSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LAYER_IMPORTS } from "./layers.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/*
 * A test under test/<layer>/ is named for the module it tests: `<module>[.<aspect>].test.ts`,
 * with `.integration` before `.test` when it needs the emulators or child processes. Tests that
 * span several modules belong in test/system/, so a newcomer finds a module's tests by its name.
 */
const moduleOf = (testPath: string): string =>
  testPath.replace(/^test\//, "lib/").replace(/(\.[a-z0-9-]+)*?(\.integration)?\.test\.ts$/, "");

const testFiles = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return testFiles(path);
        return entry.name.endsWith(".test.ts") ? [relative(ROOT, path).split(sep).join("/")] : [];
      })
    : [];

describe("the tests mirror lib/", () => {
  it("names every test under a layer folder after a module of that folder", () => {
    const layers = Object.keys(LAYER_IMPORTS).filter((layer) => layer !== "entry");
    const tests = layers.flatMap((layer) => testFiles(join(ROOT, "test", layer)));
    expect(tests.length).toBeGreaterThan(80);
    const unmatched = tests.filter((test) => {
      const stem = moduleOf(test);
      return !existsSync(join(ROOT, `${stem}.ts`)) && !existsSync(join(ROOT, stem));
    });
    expect(unmatched).toEqual([]);
  });

  it.each([
    ["test/app/operator/redrive.integration.test.ts", "lib/app/operator/redrive"],
    ["test/app/operator/redrive.budget.test.ts", "lib/app/operator/redrive"],
    [
      "test/adapters/dynamo-event-store.operator-writes.integration.test.ts",
      "lib/adapters/dynamo-event-store",
    ],
    ["test/core/envelope.test.ts", "lib/core/envelope"],
  ])("reads %s as a test of %s", (test, module) => {
    expect(moduleOf(test)).toBe(module);
  });
});

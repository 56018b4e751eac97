import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { CHECKED_NODES, checkedNodeBinary } from "../../support/lambda-node.js";
import { readUserDocuments } from "../../support/user-documents.js";

/*
 * Users reach Ricochet only through the package's export map, and learn how from the README and
 * docs/. This runs every import the documents show, by its package specifier, in a plain Node
 * process, so a guide cannot name a path the package does not export or a name an entry point
 * does not provide. The `ricochet-source` condition points the same export map at the TypeScript
 * sources (through tsx), so this runs unbuilt; test/package/consumer-app.test.ts checks the
 * built package.
 */

/** `import { a, type B } from "ricochet…"` in the documents: specifier → runtime names. */
const documentedImports = (): Map<string, Set<string>> => {
  const imports = new Map<string, Set<string>>();
  const pattern = /import\s*\{([^}]*)\}\s*from\s*"(ricochet(?:\/[^"]*)?)"/g;
  for (const { text } of readUserDocuments()) {
    for (const [, names = "", specifier = ""] of text.matchAll(pattern)) {
      const wanted = imports.get(specifier) ?? new Set<string>();
      imports.set(specifier, wanted);
      for (const name of names.split(",").map((n) => n.trim())) {
        // A type-only name leaves nothing to check at run time; tsc checks it in the sources.
        if (name !== "" && !name.startsWith("type ")) wanted.add(name.split(/\s+as\s+/)[0] ?? name);
      }
    }
  }
  return imports;
};

const exportedNames = async (
  specifiers: readonly string[],
  node: string = process.execPath,
): Promise<Record<string, string[]>> => {
  const script = `
    const out = {};
    for (const specifier of ${JSON.stringify(specifiers)}) {
      out[specifier] = Object.keys(await import(specifier));
    }
    console.log(JSON.stringify(out));
  `;
  const { stdout } = await promisify(execFile)(
    node,
    ["--conditions=ricochet-source", "--import", "tsx", "--input-type=module", "--eval", script],
    { timeout: 60_000 },
  );
  return JSON.parse(stdout) as Record<string, string[]>;
};

describe("the package's entry points", () => {
  it.each(CHECKED_NODES)(
    "provide every name the README and docs/ import, under the specifiers they use, on the %s Node.js",
    async (which) => {
      const imports = documentedImports();
      // The guides show all three entry points; fewer means the scan itself has broken.
      expect([...imports.keys()].sort()).toEqual([
        "ricochet",
        "ricochet/infra",
        "ricochet/receiver",
      ]);

      const exported = await exportedNames([...imports.keys()], await checkedNodeBinary(which));

      for (const [specifier, names] of imports) {
        expect({
          specifier,
          missing: [...names].filter((n) => !exported[specifier]?.includes(n)),
        }).toEqual({ specifier, missing: [] });
      }
    },
    300_000,
  );

  it("exports the construct's encryption choice and props defaults next to the construct", async () => {
    const exported = await exportedNames(["ricochet/infra"]);
    expect(exported["ricochet/infra"]).toEqual(
      expect.arrayContaining([
        "RetryOrchestrator",
        "OrchestratorEncryption",
        "RETRY_ORCHESTRATOR_DEFAULTS",
        "RicochetStack",
      ]),
    );
  }, 60_000);
});

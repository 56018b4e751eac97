import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ENVELOPE_SCHEMA_FILE } from "../../scripts/write-json-schema.js";
import { aMutation, anEnvelopeDocument } from "../support/envelope-arbitraries.js";
import { schemaAccepts } from "../support/envelope-verdicts.js";

/*
 * The published schema means the same in Python as in JavaScript: Python's `jsonschema` (with
 * its format checker, as issue 36's producer ran it) gives ajv's verdict on every generated
 * envelope. Python's `re` is not ECMA-262's (its `$` also matches before a final line break),
 * and without the `rfc3987` package it checks no `uri` format at all. Skipped where the
 * machine's python3 has no `jsonschema`.
 */

const HAS_JSONSCHEMA = spawnSync("python3", ["-c", "import jsonschema"]).status === 0;

const VALIDATE = `
import json, sys
from jsonschema import Draft202012Validator as V
v = V(json.load(open(sys.argv[1])), format_checker=V.FORMAT_CHECKER)
print(json.dumps([v.is_valid(d) for d in json.load(sys.stdin)]))
`;

const runFile = promisify(execFile);

/** Python's verdict on each document, in one python3 run. */
const pythonAccepts = async (documents: readonly unknown[]): Promise<boolean[]> => {
  const run = runFile("python3", ["-c", VALIDATE, ENVELOPE_SCHEMA_FILE], {
    maxBuffer: 16 * 1024 * 1024,
  });
  run.child.stdin?.end(JSON.stringify(documents));
  return JSON.parse((await run).stdout) as boolean[];
};

const withUrl = (url: string) => ({ eventId: "e-1", target: { type: "http", url }, payload: null });

describe.skipIf(!HAS_JSONSCHEMA)("the published JSON Schema read by Python's jsonschema", () => {
  it("refuses issue 36's URLs, and accepts an https one", async () => {
    expect(
      await pythonAccepts([
        withUrl("ftp://127.0.0.1/x"),
        withUrl("not a url"),
        withUrl("https://hooks.example.com/h"),
      ]),
    ).toEqual([false, false, true]);
  });

  it("gives ajv's verdict on generated envelopes, valid and with one field changed", async () => {
    const documents = fc.sample(
      fc.oneof(
        anEnvelopeDocument,
        fc.tuple(anEnvelopeDocument, aMutation).map(([document, mutate]) => mutate(document)),
      ),
      { numRuns: 3000, seed: 36 },
    );
    const byPython = await pythonAccepts(documents);
    const parted = documents.filter((document, i) => byPython[i] !== schemaAccepts(document));
    expect(parted.slice(0, 5).map((document) => JSON.stringify(document))).toEqual([]);
  });
});

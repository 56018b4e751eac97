import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as z from "zod";
import { ENVELOPE_VERSION, EnvelopeSchema } from "../lib/core/envelope.js";

/**
 * Writes the envelope's published JSON Schema (`npm run schema`). The schema is generated from
 * the zod schema the orchestrator validates with, so producers and Ricochet share one contract;
 * a test fails when the committed file and this output drift apart.
 */

export const ENVELOPE_SCHEMA_ID = `urn:ricochet:schema:envelope:${ENVELOPE_VERSION}`;
export const ENVELOPE_SCHEMA_FILE = fileURLToPath(
  new URL("../schema/envelope.schema.json", import.meta.url),
);

/*
 * JSON Schema's patterns are ECMA-262's, but producers' validators run them in their own
 * language's engine, where two things differ. Python's and Java's `$` also match before a final
 * line break, so there `^[a-z]+$` accepts "abc\n" (Python's jsonschema accepted "e-1\n" as an
 * event id and "…Z\n" as a deadline): no envelope string with a pattern may hold a line break,
 * so each says so in a keyword every engine reads alike (no lookahead: Go's RE2 has none). And
 * Python's `\d` is any Unicode digit ("١٢" in an account id): it is written `0-9`.
 */
const NO_LINE_BREAK = { not: { pattern: "[\n\r]" } } as const;

/** `pattern` with every `\d` written as `0-9` (in a class) or `[0-9]` (outside one). */
const asciiDigits = (pattern: string): string => {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i] ?? "";
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      out += next === "d" ? (inClass ? "0-9" : "[0-9]") : c + next;
      i += 1;
    } else {
      if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      out += c;
    }
  }
  return out;
};

/** `schema` with every `pattern` in it made to mean the same in every engine (see above). */
const portablePatterns = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(portablePatterns);
  if (schema === null || typeof schema !== "object") return schema;
  const node = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, portablePatterns(value)]),
  );
  if (typeof node.pattern !== "string") return node;
  const allOf: unknown[] = Array.isArray(node.allOf) ? node.allOf : [];
  return { ...node, pattern: asciiDigits(node.pattern), allOf: [...allOf, NO_LINE_BREAK] };
};

/** The envelope's JSON Schema (draft 2020-12), for the input a producer sends. */
export const envelopeJsonSchema = (): Record<string, unknown> => {
  const generated = z.toJSONSchema(EnvelopeSchema, {
    target: "draft-2020-12",
    io: "input",
    // A refinement JSON Schema cannot state is one of lib/core/orchestrator-only-checks.ts;
    // those the schema can state are given to it with `.meta()` beside the refinement.
    unrepresentable: "any",
  });
  const { $schema, ...rest } = portablePatterns(generated) as Record<string, unknown>;
  return { $schema, $id: ENVELOPE_SCHEMA_ID, title: "Ricochet envelope", ...rest };
};

/** The file's exact text: stable key order, two-space indent, trailing newline. */
export const renderEnvelopeJsonSchema = (): string =>
  `${JSON.stringify(envelopeJsonSchema(), null, 2)}\n`;

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ENVELOPE_SCHEMA_FILE, renderEnvelopeJsonSchema());
  console.log(`wrote ${ENVELOPE_SCHEMA_FILE}`);
}

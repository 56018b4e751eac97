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
 * JSON Schema's patterns are ECMA-262's, where `$` ends the string; Python's and Java's `$` also
 * match before a final line break, so there `^[a-z]+$` accepts "abc\n" (Python's jsonschema
 * accepted "e-1\n" as an event id and "…Z\n" as a deadline). No envelope string with a pattern
 * may hold a line break, so each says so in a keyword every regular expression engine reads
 * alike (no lookahead: Go's RE2 has none).
 */
const NO_LINE_BREAK = { not: { pattern: "[\n\r]" } } as const;

/** `schema` with {@link NO_LINE_BREAK} beside every `pattern` in it. */
const withoutLineBreaks = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(withoutLineBreaks);
  if (schema === null || typeof schema !== "object") return schema;
  const node = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, withoutLineBreaks(value)]),
  );
  if (typeof node.pattern !== "string") return node;
  const allOf: unknown[] = Array.isArray(node.allOf) ? node.allOf : [];
  return { ...node, allOf: [...allOf, NO_LINE_BREAK] };
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
  const { $schema, ...rest } = withoutLineBreaks(generated) as Record<string, unknown>;
  return { $schema, $id: ENVELOPE_SCHEMA_ID, title: "Ricochet envelope", ...rest };
};

/** The file's exact text: stable key order, two-space indent, trailing newline. */
export const renderEnvelopeJsonSchema = (): string =>
  `${JSON.stringify(envelopeJsonSchema(), null, 2)}\n`;

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ENVELOPE_SCHEMA_FILE, renderEnvelopeJsonSchema());
  console.log(`wrote ${ENVELOPE_SCHEMA_FILE}`);
}

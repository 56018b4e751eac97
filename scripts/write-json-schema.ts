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

/** The envelope's JSON Schema (draft 2020-12), for the input a producer sends. */
export const envelopeJsonSchema = (): Record<string, unknown> => {
  const generated = z.toJSONSchema(EnvelopeSchema, {
    target: "draft-2020-12",
    io: "input",
    // Refinements (payload depth, reserved headers, base <= max) cannot be expressed in JSON
    // Schema; Ricochet still enforces them, so the schema is necessary, not sufficient.
    unrepresentable: "any",
  });
  const { $schema, ...rest } = generated;
  return { $schema, $id: ENVELOPE_SCHEMA_ID, title: "Ricochet envelope", ...rest };
};

/** The file's exact text: stable key order, two-space indent, trailing newline. */
export const renderEnvelopeJsonSchema = (): string =>
  `${JSON.stringify(envelopeJsonSchema(), null, 2)}\n`;

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ENVELOPE_SCHEMA_FILE, renderEnvelopeJsonSchema());
  console.log(`wrote ${ENVELOPE_SCHEMA_FILE}`);
}

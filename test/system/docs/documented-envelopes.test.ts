import { describe, expect, it } from "vitest";
import { type JsonExample, jsonExamples } from "../../support/document-examples.js";
import { orchestratorProblems, schemaErrors } from "../../support/envelope-verdicts.js";

/*
 * Every JSON example the README and docs/ give is read as a reader would copy it: an envelope
 * (an object with an eventId and a target) must be one both the published JSON Schema and the
 * orchestrator accept, and still deliverable (its deadline ahead); anything else (settings,
 * command output, a `cdk.json` fragment) must at least be JSON, unless shortened with `…`.
 */

/** The example as a JSON value: a `jsonc` block without its comments, a fragment in braces. */
const parse = (example: JsonExample): unknown => {
  const text = example.text.replace(/^\s*\/\/.*$/gm, "").replace(/\s\/\/ .*$/gm, "");
  try {
    return JSON.parse(text.trimStart().startsWith('"') ? `{${text}}` : text);
  } catch (error) {
    throw new Error(`${example.source} is no JSON: ${String(error)}`);
  }
};

/**
 * Command output shortened with `…` in place of members or items is a picture of the output, not
 * a document to copy. A `…` inside a string is no elision: the example is copied with it.
 */
const isElided = (example: JsonExample): boolean => /[,[{:]\s*…/.test(example.text);

const isEnvelope = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && "eventId" in value && "target" in value;

const examples = jsonExamples()
  .filter((example) => !isElided(example))
  .map((example) => ({ example, value: parse(example) }));
const envelopes = examples.flatMap(({ example, value }) =>
  isEnvelope(value) ? [{ example, value }] : [],
);

describe("the JSON examples of the user documents", () => {
  it("are found: the README's envelope and the deployment guide's", () => {
    console.log(
      `${examples.length} JSON examples, ${envelopes.length} envelopes: ${envelopes.map(({ example }) => example.source).join(", ")}`,
    );
    expect(envelopes.filter(({ example }) => example.source.startsWith("README.md:"))).toHaveLength(
      1,
    );
    expect(envelopes.length).toBeGreaterThanOrEqual(3);
  });

  it.each(envelopes.map(({ example, value }) => [example.source, value] as const))(
    "%s is an envelope the schema and the orchestrator both accept",
    (_, envelope) => {
      expect(schemaErrors(envelope)).toBe("");
      expect(orchestratorProblems(envelope)).toEqual([]);
    },
  );

  it.each(envelopes.map(({ example, value }) => [example.source, value] as const))(
    "%s is not past its deadline, nor scheduled",
    (_, envelope) => {
      const { deadline, notBefore } = envelope;
      if (typeof deadline === "string") {
        // A decade ahead, so that the example does not expire under a reader again.
        expect(Date.parse(deadline)).toBeGreaterThan(Date.now() + 10 * 365 * 86_400_000);
      }
      expect(notBefore).toBeUndefined();
    },
  );
});

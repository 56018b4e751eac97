import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsPlugin from "ajv-formats";
import { parseEnvelope } from "../../lib/core/envelope.js";
import { type InputProblem, InvalidPolicyError } from "../../lib/core/errors.js";
import { ORCHESTRATOR_ONLY_CHECKS } from "../../lib/core/orchestrator-only-checks.js";
import { DEFAULT_POLICY, resolvePolicy } from "../../lib/core/policy.js";
import { ENVELOPE_SCHEMA_FILE } from "../../scripts/write-json-schema.js";

/*
 * Two verdicts on one document: the published JSON Schema's, by a standard validator (ajv with
 * ajv-formats, as a producer in another language would use its own), and the orchestrator's,
 * by the code it admits a message with (parseEnvelope, then the policy merged over the
 * deployment's, as admitMessage does).
 */

// ajv-formats is CommonJS: its default export is the plugin, typed as the module under NodeNext.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
const schemaValidate = ajv.compile(JSON.parse(readFileSync(ENVELOPE_SCHEMA_FILE, "utf8")));

/** Whether the committed `schema/envelope.schema.json` accepts the document. */
export const schemaAccepts = (document: unknown): boolean => schemaValidate(document) === true;

/** ajv's complaints about the document, for a failure message. */
export const schemaErrors = (document: unknown): string =>
  schemaValidate(document) ? "" : ajv.errorsText(schemaValidate.errors);

/** The problems the orchestrator finds with the document as a message body (none: valid). */
export const orchestratorProblems = (document: unknown): readonly InputProblem[] => {
  const parsed = parseEnvelope(JSON.stringify(document));
  if (!parsed.ok) return parsed.problems;
  try {
    resolvePolicy(DEFAULT_POLICY, parsed.envelope.policy);
    return [];
  } catch (error) {
    if (error instanceof InvalidPolicyError) return error.problems;
    throw error;
  }
};

const ORCHESTRATOR_ONLY_IDS: ReadonlySet<string> = new Set(
  ORCHESTRATOR_ONLY_CHECKS.map((c) => c.id),
);

/** A problem only the orchestrator can find (a documented check), which the schema may miss. */
const isOrchestratorOnly = (problem: InputProblem): boolean =>
  problem.check !== undefined && ORCHESTRATOR_ONLY_IDS.has(problem.check);

/**
 * How the two verdicts relate: `agree`, or `orchestrator_only` when the schema accepts what the
 * orchestrator refuses for documented reasons only, or the disagreement (a contract bug).
 */
export const verdictRelation = (
  document: unknown,
): "agree" | "orchestrator_only" | "schema_accepts_more" | "schema_refuses_more" => {
  const bySchema = schemaAccepts(document);
  const problems = orchestratorProblems(document);
  if (bySchema === (problems.length === 0)) return "agree";
  if (!bySchema) return "schema_refuses_more";
  return problems.every(isOrchestratorOnly) ? "orchestrator_only" : "schema_accepts_more";
};

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateEnvelope } from "../../lib/core/envelope.js";
import {
  ENVELOPE_SCHEMA_FILE,
  ENVELOPE_SCHEMA_ID,
  envelopeJsonSchema,
  renderEnvelopeJsonSchema,
} from "../../scripts/write-json-schema.js";
import { aLambdaTarget, anEnvelope, anHttpTarget } from "../support/factories.js";

type Schema = { readonly [keyword: string]: unknown };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const TYPE_CHECKS: Record<string, (value: unknown) => boolean> = {
  object: isObject,
  array: Array.isArray,
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number",
  integer: (value) => Number.isInteger(value),
};

/**
 * Whether `value` satisfies `schema`, for the keywords the envelope schema uses. Deliberately
 * small (no $ref, no formats): enough to show the published schema and zod agree on the
 * structural rules, without a JSON Schema validator dependency.
 */
const conforms = (schema: Schema, value: unknown): boolean => {
  const s = schema as Record<string, unknown>;
  if (typeof s.type === "string" && !TYPE_CHECKS[s.type]?.(value)) return false;
  if ("const" in s && value !== s.const) return false;
  if (Array.isArray(s.enum) && !s.enum.includes(value)) return false;
  if (Array.isArray(s.oneOf) && s.oneOf.filter((sub) => conforms(sub, value)).length !== 1)
    return false;
  if (Array.isArray(s.anyOf) && !s.anyOf.some((sub) => conforms(sub, value))) return false;
  if (typeof value === "string") {
    if (typeof s.minLength === "number" && value.length < s.minLength) return false;
    if (typeof s.maxLength === "number" && value.length > s.maxLength) return false;
    if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(value)) return false;
  }
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) return false;
    if (typeof s.maximum === "number" && value > s.maximum) return false;
  }
  if (Array.isArray(value)) {
    if (typeof s.maxItems === "number" && value.length > s.maxItems) return false;
    if (isObject(s.items) && !value.every((item) => conforms(s.items as Schema, item)))
      return false;
  }
  if (isObject(value)) {
    const properties = isObject(s.properties) ? s.properties : {};
    const required = Array.isArray(s.required) ? s.required : [];
    if (!required.every((key) => key in value)) return false;
    for (const [key, child] of Object.entries(value)) {
      if (isObject(s.propertyNames) && !conforms(s.propertyNames, key)) return false;
      const sub = properties[key] ?? s.additionalProperties;
      if (sub === false) return false;
      if (isObject(sub) && !conforms(sub, child)) return false;
    }
  }
  return true;
};

describe("the published envelope JSON Schema", () => {
  it("is exactly what `npm run schema` generates now (run it after changing EnvelopeSchema)", () => {
    expect(readFileSync(ENVELOPE_SCHEMA_FILE, "utf8")).toBe(renderEnvelopeJsonSchema());
  });

  it("is a draft 2020-12 schema with an id and a title", () => {
    expect(envelopeJsonSchema()).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: ENVELOPE_SCHEMA_ID,
      title: "Ricochet envelope",
      required: ["eventId", "target", "payload"],
      additionalProperties: false,
    });
  });

  const schema = envelopeJsonSchema();

  it.each<[string, unknown]>([
    ["a minimal HTTP envelope", anEnvelope()],
    [
      "a Lambda envelope with a policy",
      anEnvelope({
        target: aLambdaTarget(),
        policy: { maxAttempts: 3, retryOnStatus: [404, "timeout"] },
      }),
    ],
    [
      "a full HTTP envelope",
      anEnvelope({
        version: 1,
        target: anHttpTarget({ method: "PUT", headers: { "X-Trace": "1" }, timeoutMs: 500 }),
        deadline: "2030-01-01T00:00:00Z",
      }),
    ],
    ["a missing payload", { eventId: "evt-1", target: anHttpTarget() }],
    ["a missing event id", { target: anHttpTarget(), payload: 1 }],
    ["a look-alike event id", anEnvelope({ eventId: "evt-\u0430" })],
    ["an overlong event id", anEnvelope({ eventId: "e".repeat(129) })],
    ["an unknown field", { ...anEnvelope(), priority: 1 }],
    ["an unknown target type", { ...anEnvelope(), target: { type: "smtp" } }],
    [
      "a Lambda target with a URL",
      { ...anEnvelope(), target: { ...aLambdaTarget(), url: "https://x.example" } },
    ],
    ["an unknown method", { ...anEnvelope(), target: { ...anHttpTarget(), method: "TRACE" } }],
    ["a fractional timeout", anEnvelope({ target: anHttpTarget({ timeoutMs: 100.5 }) })],
    ["an unknown jitter", { ...anEnvelope(), policy: { jitter: "random" } }],
    ["a status code out of range", anEnvelope({ policy: { retryOnStatus: [700] } })],
    ["an unknown error category", { ...anEnvelope(), policy: { noRetryOnStatus: ["meteor"] } }],
    ["version 2", { ...anEnvelope(), version: 2 }],
    [
      "a header value with a newline",
      anEnvelope({ target: anHttpTarget({ headers: { "X-A": "1\n2" } }) }),
    ],
    [
      "a header value with a euro sign",
      anEnvelope({ target: anHttpTarget({ headers: { "X-Price": "5 €" } }) }),
    ],
    [
      "a header value with a control character",
      anEnvelope({ target: anHttpTarget({ headers: { "X-A": "1\u007f" } }) }),
    ],
    [
      "a header value with a tab and Latin-1",
      anEnvelope({ target: anHttpTarget({ headers: { "X-A": "Grüße\tà tous" } }) }),
    ],
    [
      "a header name with a space",
      anEnvelope({ target: anHttpTarget({ headers: { "X A": "1" } }) }),
    ],
    ["a deadline without a zone", anEnvelope({ deadline: "2030-01-01T00:00:00" })],
  ])("judges %s as zod does", (_, document) => {
    expect(conforms(schema, document)).toBe(validateEnvelope(document).ok);
  });
});

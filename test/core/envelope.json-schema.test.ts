import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateEnvelope } from "../../lib/core/envelope.js";
import {
  ENVELOPE_SCHEMA_FILE,
  ENVELOPE_SCHEMA_ID,
  envelopeJsonSchema,
  renderEnvelopeJsonSchema,
} from "../../scripts/write-json-schema.js";
import { schemaAccepts } from "../support/envelope-verdicts.js";
import { aLambdaTarget, anEnvelope, anHttpTarget } from "../support/factories.js";

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
  ])("judges %s as zod does (ajv, with formats)", (_, document) => {
    expect(schemaAccepts(document)).toBe(validateEnvelope(document).ok);
  });
});

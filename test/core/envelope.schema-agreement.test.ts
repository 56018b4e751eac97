import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OrchestratorOnlyChecks } from "../../lib/core/orchestrator-only-checks.js";
import { aMutation, anEnvelopeDocument } from "../support/envelope-arbitraries.js";
import {
  orchestratorProblems,
  schemaAccepts,
  schemaErrors,
  verdictRelation,
} from "../support/envelope-verdicts.js";

/*
 * The published JSON Schema and the orchestrator judge envelopes alike: generated envelopes,
 * valid ones and ones with one field changed, get the same verdict from ajv (with formats) and
 * from the orchestrator's validator, except where the orchestrator refuses for one of the
 * checks only it can make (lib/core/orchestrator-only-checks.ts). The schema refusing what the
 * orchestrator accepts is never allowed.
 */

const describeDisagreement = (document: unknown): string =>
  `schema: ${schemaAccepts(document) ? "accepts" : `refuses (${schemaErrors(document)})`}; orchestrator: ${JSON.stringify(orchestratorProblems(document))}`;

const expectAgreement = (document: unknown): void => {
  const relation = verdictRelation(document);
  if (relation !== "agree" && relation !== "orchestrator_only") {
    expect.fail(`${relation} for ${JSON.stringify(document)}: ${describeDisagreement(document)}`);
  }
};

describe("the published JSON Schema and the orchestrator's validator", () => {
  it("both accept every generated valid envelope", () => {
    fc.assert(
      fc.property(anEnvelopeDocument, (document) => {
        expect(orchestratorProblems(document)).toEqual([]);
        expect(schemaErrors(document)).toBe("");
      }),
      { numRuns: 400 },
    );
  });

  it("judge every envelope with one field changed alike, apart from orchestrator-only checks", () => {
    fc.assert(
      fc.property(anEnvelopeDocument, aMutation, (document, mutate) =>
        expectAgreement(mutate(document)),
      ),
      { numRuns: 3000 },
    );
  });

  it.each([
    ["an ftp:// URL", "ftp://127.0.0.1/x"],
    ["a string that is no URL", "not a url"],
    ["a URL with a space in its path", "http://example.com/a b"],
  ])("both refuse %s (issue #36)", (_, url) => {
    const document = { eventId: "e-1", target: { type: "http", url }, payload: null };
    expect(schemaAccepts(document)).toBe(false);
    expect(orchestratorProblems(document)).not.toEqual([]);
  });

  it("both refuse a reserved header in any case, and a 51st header", () => {
    const target = (headers: Record<string, string>) => ({
      eventId: "e-1",
      target: { type: "http", url: "https://h.example/", headers },
      payload: null,
    });
    for (const document of [
      target({ "IDEMPOTENCY-key": "x" }),
      target(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-${i}`, "1"]))),
    ]) {
      expect(schemaAccepts(document)).toBe(false);
      expect(orchestratorProblems(document)).not.toEqual([]);
    }
  });

  it("tags the refusals the schema cannot make with their documented check", () => {
    const document = { eventId: "e-1", target: { type: "http", url: "http://a.1/" }, payload: 1 };
    expect(schemaAccepts(document)).toBe(true);
    expect(orchestratorProblems(document)).toEqual([
      expect.objectContaining({ path: "target.url", check: OrchestratorOnlyChecks.URL_HOST.id }),
    ]);
    expect(verdictRelation(document)).toBe("orchestrator_only");
  });
});

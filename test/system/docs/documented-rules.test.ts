import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EVENT_ID_RULE } from "../../../lib/core/envelope.js";
import { ORCHESTRATOR_ONLY_CHECKS } from "../../../lib/core/orchestrator-only-checks.js";

/*
 * The README states the envelope's rules as the code declares them: the event id rule, and the
 * list of checks only the orchestrator can make (which the published schema cannot), each with
 * its reason. Compared as a reader reads them: line breaks and inline-code marks aside.
 */

const README = readFileSync("README.md", "utf8");
const asRead = (text: string): string => text.replace(/`/g, "").replace(/\s+/g, " ");

/** The README's paragraph or list item that begins with `start`, as read. */
const itemStarting = (start: string): string => {
  const from = README.indexOf(start);
  expect(from, `README has "${start}"`).toBeGreaterThanOrEqual(0);
  const rest = README.slice(from);
  const end = rest.search(/\n(?:- |\n)/);
  return asRead(end < 0 ? rest : rest.slice(0, end));
};

/** The bullets of the README's list that follows the paragraph ending in `lead`. */
const listAfter = (lead: string): string[] => {
  const from = README.indexOf(lead);
  expect(from, `README has "${lead}"`).toBeGreaterThanOrEqual(0);
  const list =
    README.slice(from + lead.length)
      .replace(/^\s*\n/, "")
      .split("\n\n")[0] ?? "";
  return list.split(/\n(?=- )/).map((item) => asRead(item.replace(/^- /, "")));
};

describe("the README's envelope rules", () => {
  it("states the event id rule the validator applies", () => {
    expect(itemStarting("- `eventId` (required):")).toContain(`(required): ${EVENT_ID_RULE};`);
  });

  it("lists exactly the checks only the orchestrator can make, each with why", () => {
    expect(listAfter("the schema accepts an envelope that fails only these:")).toEqual(
      ORCHESTRATOR_ONLY_CHECKS.map((c) => asRead(`${c.rule}, because ${c.why}`)),
    );
  });
});

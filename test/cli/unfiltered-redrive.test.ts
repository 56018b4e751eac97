import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { RedriveRequestInput } from "../../lib/app/operator/redrive-request.js";
import {
  guardUnfilteredRedrive,
  UnfilteredRedriveGate,
  unfilteredRedriveGate,
} from "../../lib/cli/unfiltered-redrive.js";
import { InvalidRequestError } from "../../lib/core/errors.js";

const UNFILTERED: RedriveRequestInput = { dryRun: false, by: "ana" };
const { PROCEED, CONFIRM, REFUSE } = UnfilteredRedriveGate;

describe("unfilteredRedriveGate", () => {
  const at = { all: false, json: false, interactive: true };
  const script = { all: false, json: false, interactive: false };
  it.each<[string, UnfilteredRedriveGate, RedriveRequestInput, typeof at]>([
    ["an unfiltered redrive at a terminal", CONFIRM, UNFILTERED, at],
    ["an unfiltered redrive with no terminal", REFUSE, UNFILTERED, script],
    ["an unfiltered --json redrive at a terminal", REFUSE, UNFILTERED, { ...at, json: true }],
    ["--all with no terminal", PROCEED, UNFILTERED, { ...script, all: true }],
    ["--all at a terminal", PROCEED, UNFILTERED, { ...at, all: true }],
    ["a dry run with no terminal", PROCEED, { ...UNFILTERED, dryRun: true }, script],
    ["event ids", PROCEED, { ...UNFILTERED, eventIds: ["e1"] }, script],
    ["reasons", PROCEED, { ...UNFILTERED, reasons: ["exhausted"] }, script],
    ["a target", PROCEED, { ...UNFILTERED, target: "group:partner" }, script],
    ["a since", PROCEED, { ...UNFILTERED, since: "2026-01-01T00:00:00Z" }, script],
    ["an until", PROCEED, { ...UNFILTERED, until: "2026-01-01T00:00:00Z" }, script],
    [
      "a limit alone, which bounds how many, not which",
      REFUSE,
      { ...UNFILTERED, limit: 5 },
      script,
    ],
    ["an empty event id list", REFUSE, { ...UNFILTERED, eventIds: [] }, script],
  ])("%s: %s", (_label, gate, request, flags) => {
    expect(unfilteredRedriveGate({ request, ...flags })).toBe(gate);
  });
});

describe("guardUnfilteredRedrive at a terminal", () => {
  /** Asks with `typed` on the input (then the input ends); returns the question shown. */
  const ask = async (typed: string): Promise<{ outcome: Promise<void>; shown: () => string }> => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => {
      shown += chunk.toString("utf8");
    });
    const outcome = guardUnfilteredRedrive(
      { request: UNFILTERED, all: false, json: false, interactive: true },
      { input, output },
    );
    input.end(typed);
    return { outcome, shown: () => shown };
  };

  it.each(["y\n", "yes\n", " Y \n"])("lets %j through", async (typed) => {
    const { outcome, shown } = await ask(typed);
    await expect(outcome).resolves.toBeUndefined();
    expect(shown()).toContain("every event in the dead-letter queue");
  });

  it.each(["n\n", "\n", "sure\n", ""])("refuses %j, saying nothing moved", async (typed) => {
    const { outcome } = await ask(typed);
    await expect(outcome).rejects.toThrow(InvalidRequestError);
    await expect(outcome).rejects.toThrow("not confirmed; nothing was moved");
  });

  it("asks nothing of a script: it refuses, naming --all", async () => {
    const input = new PassThrough();
    const outcome = guardUnfilteredRedrive(
      { request: UNFILTERED, all: false, json: false, interactive: false },
      { input, output: new PassThrough() },
    );
    await expect(outcome).rejects.toThrow(/pass --all to mean it/);
  });
});

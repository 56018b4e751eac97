import { describe, expect, it } from "vitest";
import { EventStatus } from "../../../lib/core/status.js";
import { expectedEnd, planDemo } from "../../../lib/local/demo/demo-scenario.js";
import type { DemoSummary } from "../../../lib/local/demo/demo-summary.js";
import { runScripted } from "./dev-process.js";

const EVENTS = 30;
const SEED = 11;

/** Everything in a summary except the wall-clock time. */
const counts = ({ seconds: _, ...rest }: DemoSummary) => rest;

describe("ricochet dev --once --json, run twice with one seed", () => {
  it("gives the same per-status counts both times: the ones the seed's plan implies", async () => {
    const args = ["--events", String(EVENTS), "--seed", String(SEED)];
    const runs = [await runScripted(args), await runScripted(args)];
    const [first, second] = runs.map(({ code, summary, stderr }) => {
      expect(code, stderr.slice(-2000)).toBe(0);
      if (summary === undefined) throw new Error(`no summary; stderr: ${stderr.slice(-2000)}`);
      return counts(summary);
    });
    expect(second).toEqual(first);

    const ends = planDemo(EVENTS, SEED, "any").map(expectedEnd);
    expect(first).toMatchObject({
      submitted: EVENTS,
      delivered: ends.filter((end) => end.status === EventStatus.DELIVERED).length,
      rejected: ends.filter((end) => end.status === EventStatus.REJECTED).length,
      deadLettered: 0,
      redriven: ends.filter((end) => end.redriven).length,
      lost: 0,
      pending: 0,
      malformed: 1,
    });
  }, 400_000);
});

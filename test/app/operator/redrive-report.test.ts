import { describe, expect, it } from "vitest";
import {
  addRow,
  type RedriveReport,
  type RedriveRow,
} from "../../../lib/app/operator/redrive-report.js";

const emptyReport = (): RedriveReport => ({ dryRun: false, moved: [], skipped: [], failed: [] });
const event = { eventId: "e-1", generation: 2, attemptBudget: 5 };
const copyLeft = { eventId: "e-1", messageId: "m-1", error: "moved, but the copy stayed" };

describe("addRow", () => {
  it.each<[string, RedriveRow, Omit<RedriveReport, "dryRun">]>([
    ["a move", { kind: "moved", event }, { moved: [event], skipped: [], failed: [] }],
    [
      "a move whose dead-letter copy stayed, as moved and as failed",
      { kind: "moved", event, leftover: copyLeft },
      { moved: [event], skipped: [], failed: [copyLeft] },
    ],
    [
      "a skip",
      { kind: "skipped", message: { messageId: "m-1", reason: "duplicate" } },
      { moved: [], skipped: [{ messageId: "m-1", reason: "duplicate" }], failed: [] },
    ],
    [
      "a failure",
      { kind: "failed", message: { messageId: "m-1", error: "boom" } },
      { moved: [], skipped: [], failed: [{ messageId: "m-1", error: "boom" }] },
    ],
  ])("reports %s", (_, row, expected) => {
    const report = emptyReport();
    addRow(report, row);
    expect(report).toEqual({ dryRun: false, ...expected });
  });
});

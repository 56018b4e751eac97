import { describe, expect, it } from "vitest";
import { finishOperatorAction } from "../../lib/cli/operator-action.js";

const view = () => ({ done: "cancelled", wouldDo: "would cancel", rows: [] });
const quiet = { write: () => true };

describe("finishOperatorAction", () => {
  it("counts one refused event in the singular in its error", () => {
    const write = process.stdout.write;
    process.stdout.write = quiet.write as typeof process.stdout.write;
    try {
      expect(() =>
        finishOperatorAction(
          { dryRun: false, refused: [{ eventId: "a", reason: "delivered" }], failed: [] },
          { json: true, view },
        ),
      ).toThrow("1 event refused (first: a: delivered)");
    } finally {
      process.stdout.write = write;
    }
  });
});

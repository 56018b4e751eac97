import { describe, expect, it } from "vitest";
import type { CleanReport } from "../../lib/app/operator/dead-letter-clean.js";
import { renderClean } from "../../lib/cli/dlq-command.js";

const removed = (n: number): CleanReport["removed"] =>
  Array.from({ length: n }, (_, i) => ({
    messageId: `m-${i}`,
    eventId: `e-${i}`,
    why: "event was delivered",
  }));

describe("renderClean (dlq clean)", () => {
  it("counts one copy in the singular on a dry run", () => {
    const text = renderClean({ dryRun: true, removed: removed(1), kept: 1, failed: [] });
    expect(text.split("\n").at(-1)).toBe("1 copy would be removed, 1 kept");
  });

  it("counts several copies in the plural once removed", () => {
    const text = renderClean({
      dryRun: false,
      removed: removed(2),
      kept: 0,
      failed: [{ messageId: "m-9", error: "throttled" }],
    });
    expect(text).toContain("2 copies removed, 0 kept, 1 failed");
    expect(text).not.toContain("(s)");
  });
});

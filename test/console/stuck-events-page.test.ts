import { describe, expect, it } from "vitest";
import { stuckEventsPage } from "../../lib/console/stuck-events-page.js";
import { anEventRecord } from "../support/factories.js";

describe("stuck events page", () => {
  it("lists each stuck event with when it was due, its id escaped", async () => {
    const page = String(
      await stuckEventsPage({
        records: [
          anEventRecord({
            eventId: "<b>e-1</b>",
            status: "retry_scheduled",
            nextAttemptAt: "2026-12-03T10:00:00.000Z",
          }),
        ],
        cutShort: true,
      }),
    );

    expect(page).toContain("&lt;b&gt;e-1&lt;/b&gt;");
    expect(page).not.toContain("<b>e-1</b>");
    expect(page).toContain("2026-12-03T10:00:00.000Z");
    expect(page).toContain("ricochet events --stuck --limit 1000");
  });

  it("says when nothing is stuck", async () => {
    const page = String(await stuckEventsPage({ records: [], cutShort: false }));

    expect(page).toContain("No stuck events.");
  });
});

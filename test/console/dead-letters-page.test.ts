import { describe, expect, it } from "vitest";
import type { DeadLetterListing } from "../../lib/app/dead-letter-scan.js";
import { groupDeadLetters } from "../../lib/console/dead-letter-groups.js";
import { deadLettersPage } from "../../lib/console/dead-letters-page.js";

const invalidCopy: DeadLetterListing = {
  messageId: "m-1",
  eventId: "e-1",
  reason: "invalid_envelope",
  attempts: 0,
  deadLetteredAt: "2030-01-01T00:00:00.000Z",
  receiveCount: 1,
  verified: true,
  problems: [{ path: "target.url", message: `<img src=x onerror=alert(1)> is not a URL` }],
};

describe("deadLettersPage", () => {
  it("shows an invalid envelope's problems, escaped (issue #36)", () => {
    const page = String(deadLettersPage(groupDeadLetters([invalidCopy]), "token"));
    expect(page).toContain("target.url: &lt;img src=x onerror=alert(1)&gt; is not a URL");
    expect(page).not.toContain("<img");
  });
});

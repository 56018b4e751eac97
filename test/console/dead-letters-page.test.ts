import { describe, expect, it } from "vitest";
import { groupDeadLetters } from "../../lib/console/dead-letter-groups.js";
import { deadLettersPage } from "../../lib/console/dead-letters-page.js";
import { aDeadLetterListing } from "../support/factories.js";

const invalidCopy = aDeadLetterListing({
  messageId: "m-1",
  eventId: "e-1",
  reason: "invalid_envelope",
  attempts: 0,
  problems: [{ path: "target.url", message: `<img src=x onerror=alert(1)> is not a URL` }],
});

describe("deadLettersPage", () => {
  it("shows an invalid envelope's problems, escaped (issue #36)", () => {
    const page = String(deadLettersPage(groupDeadLetters([invalidCopy]), "token"));
    expect(page).toContain("target.url: &lt;img src=x onerror=alert(1)&gt; is not a URL");
    expect(page).not.toContain("<img");
  });
});

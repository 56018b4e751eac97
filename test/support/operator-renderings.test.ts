import { describe, expect, it } from "vitest";
import { anEventRecord } from "./factories.js";
import { HOSTILE_TEXTS } from "./hostile-text.js";
import { checkInertRenderings } from "./operator-renderings.js";

const views = (message: string) => ({
  records: [
    anEventRecord({
      eventId: "e1",
      status: "dead_lettered",
      lastOutcome: { class: "retryable", statusCode: 503, message },
    }),
  ],
  deadLetters: [],
  targets: [],
  cleans: [],
  redrives: [],
  nowMs: Date.UTC(2030, 0, 1),
});

describe("checkInertRenderings (issue #31, finding 7)", () => {
  it.each(HOSTILE_TEXTS)("passes the CLI's renderings of a receiver's %j", (text) => {
    expect(checkInertRenderings(views(`HTTP 503: ${text}`))).toEqual([]);
  });
});

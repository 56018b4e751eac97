import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseWebhookId, webhookIdOf } from "../../lib/core/webhook-id.js";

const eventIds = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,60}$/);
const replays = fc.nat(1000);

describe("webhookIdOf", () => {
  it.each([
    ["order-1042:shipped", 0, "order-1042:shipped"],
    ["order-1042:shipped", undefined, "order-1042:shipped"],
    ["order.1042", 0, "order%2E1042"],
    ["a.b.c", 3, "a%2Eb%2Ec~replay-3"],
  ])("writes %s (replay %s) as %s", (eventId, replay, expected) => {
    expect(webhookIdOf({ eventId, replay })).toBe(expected);
  });

  it("never contains a dot, so <webhook-id>.<timestamp>.<body> splits one way only", () => {
    fc.assert(
      fc.property(eventIds, replays, (eventId, replay) => {
        expect(webhookIdOf({ eventId, replay })).not.toContain(".");
      }),
    );
  });

  it("gives distinct (event, replay, timestamp, body) distinct signed content", () => {
    const content = (id: string, replay: number, ts: number, body: string): string =>
      `${webhookIdOf({ eventId: id, replay })}.${ts}.${body}`;
    // The shift the old string allowed: event V.<t>, body 5 against event V, body <t>.5.
    expect(content("V.1900000000", 0, 1_900_000_000, "5")).not.toBe(
      content("V", 0, 1_900_000_000, "1900000000.5"),
    );
    fc.assert(
      fc.property(
        fc.tuple(eventIds, replays, fc.nat(), fc.string()),
        fc.tuple(eventIds, replays, fc.nat(), fc.string()),
        (a, b) => {
          fc.pre(JSON.stringify(a) !== JSON.stringify(b));
          expect(content(...a)).not.toBe(content(...b));
        },
      ),
    );
  });
});

describe("parseWebhookId", () => {
  it("reads back what webhookIdOf wrote", () => {
    fc.assert(
      fc.property(eventIds, replays, (eventId, replay) => {
        expect(parseWebhookId(webhookIdOf({ eventId, replay }))).toEqual({ eventId, replay });
      }),
    );
  });

  it.each(["", "a.b", "a%2", "a%2e", "a~replay-0", "a~replay-01", "a~replay-", "~replay-1", "a~b"])(
    "refuses %j, which Ricochet never sends",
    (webhookId) => {
      expect(parseWebhookId(webhookId)).toBeUndefined();
    },
  );
});

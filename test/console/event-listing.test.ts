import { describe, expect, it } from "vitest";
import { eventQueryOf } from "../../lib/console/event-listing.js";

describe("eventQueryOf", () => {
  it.each([
    [{}, { status: "dead_lettered", targetKey: undefined, page: 0 }],
    [
      { status: "delivered", page: "2" },
      { status: "delivered", targetKey: undefined, page: 2 },
    ],
    [
      { status: "bogus", page: "-1" },
      { status: "dead_lettered", targetKey: undefined, page: 0 },
    ],
    [
      { page: "1.5", target: " " },
      { status: "dead_lettered", targetKey: undefined, page: 0 },
    ],
    [
      { target: "group:tenant-42" },
      { status: "dead_lettered", targetKey: "group:tenant-42", page: 0 },
    ],
    [
      { target: "https://api.partner.example/hooks?x=1" },
      { status: "dead_lettered", targetKey: "http:https://api.partner.example:443", page: 0 },
    ],
  ])("reads %j as %j", (params, query) => {
    expect(eventQueryOf(params)).toEqual(query);
  });
});

import { describe, expect, it } from "vitest";
import {
  COUNT_CAP,
  COUNT_READ_BUDGET,
  eventQueryOf,
  listEvents,
  PAGE_READ_BUDGET,
} from "../../lib/console/event-listing.js";
import type { EventStore, ListByStatusRequest } from "../../lib/core/ports.js";
import { ALL_STATUSES, type EventStatus } from "../../lib/core/status.js";
import { anEventRecord } from "../support/factories.js";

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

describe("listEvents", () => {
  /** A store whose statuses hold `held` records each, `cutShort` when its budget is below them. */
  const storeHolding = (held: Partial<Record<EventStatus, number>>) => {
    const requests: ListByStatusRequest[] = [];
    const store: Pick<EventStore, "listByStatus"> = {
      listByStatus: async (request) => {
        requests.push(request);
        const count = held[request.status] ?? 0;
        const budget = request.maxItemsRead ?? Number.POSITIVE_INFINITY;
        const listed = Math.min(count, request.limit, budget);
        return {
          records: Array.from({ length: listed }, (_, n) =>
            anEventRecord({ eventId: `${request.status}-${n}`, status: request.status }),
          ),
          cutShort: listed < request.limit && listed < count,
        };
      },
    };
    return { store, requests };
  };

  it("bounds every read it makes by items read, so a refresh never scans a whole table", async () => {
    const { store, requests } = storeHolding({});
    await listEvents(store, { status: "in_flight", page: 3 });
    expect(requests).toHaveLength(ALL_STATUSES.length + 1);
    for (const request of requests) expect(request.maxItemsRead).toBeGreaterThan(0);
    expect(Math.max(...requests.map((r) => r.maxItemsRead ?? Number.POSITIVE_INFINITY))).toBe(
      PAGE_READ_BUDGET,
    );
  });

  it.each([
    // [held in the status, shown count, more, partial]
    [3, 3, false, false],
    [COUNT_CAP + 5, COUNT_CAP, true, false],
    [COUNT_READ_BUDGET + 5, COUNT_CAP, true, false],
  ])("counts %i held records as %i (more: %s, partial: %s)", async (held, count, more, partial) => {
    const { store } = storeHolding({ delivered: held });
    const listing = await listEvents(store, { status: "delivered", page: 0 });
    expect(listing.counts.find((c) => c.status === "delivered")).toEqual({
      status: "delivered",
      count,
      more,
      partial,
    });
  });

  it("says a count and a page are partial when the store cut their reads short", async () => {
    const store: Pick<EventStore, "listByStatus"> = {
      listByStatus: async () => ({
        records: [anEventRecord({ status: "in_flight" })],
        cutShort: true,
      }),
    };
    const listing = await listEvents(store, { status: "in_flight", page: 0 });
    expect(listing.partial).toBe(true);
    expect(listing.counts.every((c) => c.partial && c.count === 1)).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import type { EventListing, StatusCount } from "../../lib/console/event-listing.js";
import { eventListFragment } from "../../lib/console/events-page.js";
import { anEventRecord } from "../support/factories.js";

const listingWith = (count: Omit<StatusCount, "status">, partial = false): EventListing => ({
  query: { status: "in_flight", page: 0 },
  counts: [{ status: "in_flight", ...count }],
  records: [anEventRecord({ eventId: "e-1", status: "in_flight" })],
  hasNext: false,
  partial,
});

const countShown = async (listing: EventListing): Promise<string> => {
  const page = String(await eventListFragment(listing, 10));
  return /<span class="count[^"]*"[^>]*>([^<]*)<\/span>/.exec(page)?.[1] ?? "(none)";
};

describe("events page", () => {
  it.each([
    ["an exact count", { count: 3, more: false, partial: false }, "3"],
    ["a capped count", { count: 1000, more: true, partial: false }, "1000+"],
    ["a scan cut short after finding some", { count: 4, more: false, partial: true }, "≥ 4"],
    ["a scan cut short before finding any", { count: 0, more: false, partial: true }, "?"],
  ])("shows %s as %s", async (_case, count, shown) => {
    expect(await countShown(listingWith(count))).toBe(shown);
  });

  it("explains a partial count on hover and a partial page under the list", async () => {
    const partial = String(
      await eventListFragment(listingWith({ count: 0, more: false, partial: true }, true), 10),
    );
    expect(partial).toContain("the rest of the table was not scanned");
    expect(partial).toContain("more in_flight events may exist than are listed");
    const whole = String(
      await eventListFragment(listingWith({ count: 1, more: false, partial: false }), 10),
    );
    expect(whole).not.toContain("not scanned");
    expect(whole).not.toContain("may exist");
  });
});

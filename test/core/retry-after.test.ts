import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "../../lib/core/retry-after.js";
import { FIXED_NOW_MS } from "../support/factories.js";

const NOW = FIXED_NOW_MS;
const httpDate = (offsetMs: number): string => new Date(NOW + offsetMs).toUTCString();

describe("parseRetryAfter", () => {
  it.each<[string, string | undefined, number | undefined]>([
    ["delay-seconds", "120", 120],
    ["zero", "0", 0],
    ["padded delay-seconds", "  30 ", 30],
    ["leading zeros", "007", 7],
    ["an HTTP-date in the future", httpDate(90_000), 90],
    ["an HTTP-date in the past", httpDate(-60_000), 0],
    ["an IMF-fixdate literal", "Tue, 01 Jan 2030 00:10:00 GMT", 600],
    ["absent", undefined, undefined],
    ["empty", "", undefined],
    ["negative", "-5", undefined],
    ["fractional", "1.5", undefined],
    ["an exponent", "1e3", undefined],
    ["beyond a safe integer", "99999999999999999999", undefined],
    ["words", "in a minute", undefined],
    ["an ISO date", new Date(NOW + 60_000).toISOString(), undefined],
    ["an HTTP-date without GMT", "Tue, 01 Jan 2030 00:10:00", undefined],
    ["a date-shaped nonsense", "Xyz, 99 Foo 2030 99:99:99 GMT", undefined],
  ])("reads %s (%j) as %j seconds", (_, value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it("rounds an HTTP-date's distance up to whole seconds, so the hint is never undercut", () => {
    expect(parseRetryAfter(httpDate(2_000), NOW + 500)).toBe(2);
  });
});

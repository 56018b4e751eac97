import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readmeWithSettingsTable } from "../../../scripts/settings-table.js";

/*
 * The README's settings table is written from lib/contract/settings.ts: a default, unit or name
 * changed there and not in the README (or edited in the README by hand) fails here. The fix is
 * `npm run docs:settings`.
 */
describe("the README's settings table", () => {
  it("is the one the settings table writes (npm run docs:settings)", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toBe(readmeWithSettingsTable(readme));
  });

  it("refuses a README that lost the table's markers rather than dropping the table", () => {
    expect(() => readmeWithSettingsTable("# no table here\n")).toThrow(/lacks the settings table/);
  });
});

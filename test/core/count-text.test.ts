import { describe, expect, it } from "vitest";
import { countOf } from "../../lib/core/count-text.js";

describe("countOf", () => {
  it.each([
    [0, "0 copies"],
    [1, "1 copy"],
    [2, "2 copies"],
  ])("says %i copies as %s", (count, text) => {
    expect(countOf(count, "copy", "copies")).toBe(text);
  });

  it("adds an s when no plural is given", () => {
    expect(countOf(1, "event")).toBe("1 event");
    expect(countOf(3, "event")).toBe("3 events");
  });
});

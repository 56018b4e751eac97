import { describe, expect, it } from "vitest";
import { dynamoItemBytes, dynamoValueBytes } from "../../bench/support/dynamo-item-size.js";

// The cases follow "DynamoDB item sizes and formats" (DynamoDB developer guide).
describe("dynamoValueBytes", () => {
  it.each([
    ["a string by its UTF-8 bytes", "héllo", 6],
    ["an empty string", "", 0],
    ["a one-digit number", 7, 2],
    ["a number by two digits a byte, plus one", 1234, 3],
    ["an odd digit count rounded up", 12_345, 4],
    ["leading and trailing zeros trimmed", 1_200_000, 2],
    ["a 13-digit epoch time", 1_764_777_600_123, 8],
    ["a decimal by its significant digits", 0.0125, 3],
    ["zero", 0, 2],
    ["a negative number as its digits", -42, 2],
    ["a boolean", true, 1],
    ["null", null, 1],
    ["binary by its raw bytes", new Uint8Array(5), 5],
    ["an empty list", [], 3],
    ["a list: 3, plus a byte and the size of each element", ["ab", 1], 3 + 1 + 2 + 1 + 2],
    ["an empty map", {}, 3],
    ["a map: its names count as in an item", { n: 12, w: "abc" }, 3 + (1 + 1 + 2) + (1 + 1 + 3)],
    ["a map drops undefined", { n: 12, x: undefined }, 3 + 1 + 1 + 2],
    ["a string set by its members", new Set(["a", "bc"]), 3],
  ])("weighs %s", (_name, value, bytes) => {
    expect(dynamoValueBytes(value)).toBe(bytes);
  });

  it("refuses what DynamoDB cannot store rather than weighing it as nothing", () => {
    expect(() => dynamoValueBytes(() => 1)).toThrow(/stores no function/);
  });
});

describe("dynamoItemBytes", () => {
  it("adds each attribute's name to its value", () => {
    expect(dynamoItemBytes({ eventId: "evt-1", attempts: 3 })).toBe(7 + 5 + 8 + 2);
  });

  it("weighs a record below its JSON text, which quotes every name", () => {
    const item = { eventId: "evt-1", history: [{ n: 1, c: 1_764_777_600_123, o: "delivered" }] };
    expect(dynamoItemBytes(item)).toBeLessThan(Buffer.byteLength(JSON.stringify(item)));
  });
});

import { describe, expect, it } from "vitest";
import { parseSigningKeys } from "../../lib/core/signing-keys.js";

const bytes32 = Buffer.alloc(32, 7);
const KEY = `whsec_${bytes32.toString("base64")}`;
const NEXT = `whsec_${Buffer.alloc(24, 9).toString("base64")}`;

describe("parseSigningKeys", () => {
  it.each([
    ["an old secret, whole, white space and all", "old key ", { standard: [], legacy: "old key " }],
    [
      "an old secret that merely starts with whsec_",
      "whsec_http_target_test",
      { standard: [], legacy: "whsec_http_target_test" },
    ],
    [
      "one whsec_ key (the value is also the legacy key, as before)",
      KEY,
      { standard: [bytes32], legacy: KEY },
    ],
    [
      "two whsec_ keys, newline-separated, and the legacy key",
      `${NEXT}\n${KEY}\nold-key`,
      { standard: [Buffer.alloc(24, 9), bytes32], legacy: "old-key" },
    ],
  ])("reads %s", (_name, value, expected) => {
    expect(parseSigningKeys(value)).toEqual({ ok: true, keys: expected });
  });

  it.each([
    ["an empty value", "  ", /empty/],
    [
      "a whsec_ key that is not base64",
      `${KEY} whsec_abc*def`,
      /key 2 is not whsec_ followed by base64/,
    ],
    ["a short key", `${KEY} whsec_${Buffer.alloc(8).toString("base64")}`, /8 bytes.*24 to 64/],
    ["two keys without the prefix", `${KEY} old-1 old-2`, /2 keys without the whsec_ prefix/],
    [
      "the same bytes as legacy and whsec_ key",
      `whsec_${Buffer.from("0123456789abcdef01234567").toString("base64")} 0123456789abcdef01234567`,
      /must differ/,
    ],
  ])("refuses %s with a reason that never quotes a key", (_name, value, message) => {
    const parsed = parseSigningKeys(value);
    expect(parsed).toEqual({ ok: false, message: expect.stringMatching(message) });
    if (!parsed.ok) expect(parsed.message).not.toContain("abc*def");
  });
});

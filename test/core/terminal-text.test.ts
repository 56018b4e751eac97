import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inertLines, inertText } from "../../lib/core/terminal-text.js";
import { OBEYED_BY_TERMINALS as OBEYED } from "../system/hostile/corpus.js";

describe("inertText", () => {
  it.each([
    ["an OSC 52 clipboard write", "\u001b]52;c;cm0gLXJmIH4=\u0007", "\\x1b]52;c;cm0gLXJmIH4=\\x07"],
    [
      "an OSC 8 link",
      "\u001b]8;;https://evil.example\u001b\\here\u001b]8;;\u001b\\",
      "\\x1b]8;;https://evil.example\\x1b\\here\\x1b]8;;\\x1b\\",
    ],
    ["a window title", "\u001b]0;owned\u0007", "\\x1b]0;owned\\x07"],
    [
      "cursor up and erase",
      "\u001b[1A\u001b[2Kstatus: delivered",
      "\\x1b[1A\\x1b[2Kstatus: delivered",
    ],
    ["a one-byte C1 CSI", "\u009b2J", "\\x9b2J"],
    ["a carriage return", "ok\rstatus: delivered", "ok\\x0dstatus: delivered"],
    ["a line feed", "ok\nstatus: delivered", "ok\\x0astatus: delivered"],
    ["DEL", "a\u007fb", "a\\x7fb"],
    ["a right-to-left override", "invoice\u202egpj.exe", "invoice\\u202egpj.exe"],
    ["a bidi isolate", "\u2066x\u2069", "\\u2066x\\u2069"],
  ])("shows %s as escapes", (_name, text, shown) => {
    expect(inertText(text)).toBe(shown);
  });

  it("leaves printable text as it is, non-ASCII and emoji included", () => {
    for (const text of ["HTTP 503: Service Unavailable", "café ✓ 日本 🚀", "a\\x1b stays"]) {
      expect(inertText(text)).toBe(text);
    }
  });

  it("never lets a character a terminal obeys through, and is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const shown = inertText(text);
        return !OBEYED.test(shown) && !shown.includes("\n") && inertText(shown) === shown;
      }),
    );
  });
});

describe("inertLines", () => {
  it("keeps a rendering's line feeds and escapes everything else", () => {
    expect(inertLines("a\nb\u001b[2J\r\n")).toBe("a\nb\\x1b[2J\\x0d\n");
  });

  it("never lets a character a terminal obeys through", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => !OBEYED.test(inertLines(text))));
  });
});

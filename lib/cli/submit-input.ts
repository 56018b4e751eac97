import { readFile } from "node:fs/promises";
import { text as readStream } from "node:stream/consumers";
import {
  ConfigurationError,
  errorMessage,
  type InputProblem,
  InvalidRequestError,
} from "../core/errors.js";
import { scheduleEnvelope } from "../core/submit-schedule.js";

/** Envelopes read from a file or stdin, and the lines that were not JSON at all. */
export interface SubmitInput {
  /** Parsed documents, each with its position in the input (0-based). */
  readonly documents: { readonly index: number; readonly value: unknown }[];
  readonly unreadable: { readonly index: number; readonly problems: InputProblem[] }[];
}

/** What a file system error code means to someone who typed the path. */
const UNREADABLE_BECAUSE: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "it is a directory",
};

/**
 * The file's text. A path that cannot be read is the operator's typo, not a failure of the
 * command: a one-line usage error (exit 2), not Node's `ENOENT` with its stack.
 */
const readNamedFile = async (file: string): Promise<string> => {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const because = UNREADABLE_BECAUSE[code] ?? errorMessage(error);
    throw new ConfigurationError(`cannot read --file ${file}: ${because}`, { cause: error });
  }
};

/**
 * The text of `--file <path>`, or stdin when the flag is absent or `-`.
 * @throws ConfigurationError when the file cannot be read.
 * @throws InvalidRequestError when there is none: no envelope was given.
 */
export const readEnvelopeText = async (file: string | undefined): Promise<string> => {
  const text =
    file === undefined || file === "-"
      ? await readStream(process.stdin)
      : await readNamedFile(file);
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
      const detail = errorMessage(error);
      input.unreadable.push({
        index,
        problems: [{ path: "", message: `not valid JSON: ${detail}` }],
      });
    }
  });
  return input;
};

/**
 * Sets `notBefore` (`submit --at/--in`) on every document, as the producer client's schedule
 * option does ({@link scheduleEnvelope}): a document naming another `notBefore` is refused
 * rather than silently moved, and the refusal names the flags.
 */
export const scheduleDocuments = (input: SubmitInput, notBefore: string): SubmitInput => {
  const result: SubmitInput = { documents: [], unreadable: [...input.unreadable] };
  for (const { index, value } of input.documents) {
    const scheduled = scheduleEnvelope(value, notBefore, "--at/--in");
    if (scheduled.ok) result.documents.push({ index, value: scheduled.value });
    else result.unreadable.push({ index, problems: scheduled.problems });
  }
  return result;
};

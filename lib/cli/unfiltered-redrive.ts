import { createInterface } from "node:readline/promises";
import type { RedriveRequestInput } from "../app/operator/redrive-request.js";
import { InvalidRequestError } from "../core/errors.js";

/*
 * A redrive with no filter moves every event in the dead-letter queue: after an outage that can
 * be thousands of events hitting a target that may still be failing. Typed at a terminal, it is
 * confirmed first; in a script (`--json`, or no terminal to ask on) it needs `--all`, so that a
 * variable that expanded to nothing never turns a targeted redrive into a total one.
 */

/** What an unfiltered redrive needs before it runs. */
export const UnfilteredRedriveGate = {
  /** Filtered, a dry run, or `--all`: nothing to ask. */
  PROCEED: "proceed",
  /** At a terminal: ask. */
  CONFIRM: "confirm",
  /** In a script without `--all`: refuse. */
  REFUSE: "refuse",
} as const;
export type UnfilteredRedriveGate =
  (typeof UnfilteredRedriveGate)[keyof typeof UnfilteredRedriveGate];

/**
 * Whether the request selects events by what they are (ids, reasons, target, time). `limit`
 * does not count: it bounds how many, not which.
 */
const isFilteredRedrive = (request: RedriveRequestInput): boolean =>
  (request.eventIds?.length ?? 0) > 0 ||
  (request.reasons?.length ?? 0) > 0 ||
  request.target !== undefined ||
  request.since !== undefined ||
  request.until !== undefined;

export interface GateInput {
  readonly request: RedriveRequestInput;
  readonly all: boolean;
  readonly json: boolean;
  /** Whether there is a person to ask: stdin and stderr are terminals. */
  readonly interactive: boolean;
}

/** Decides what an unfiltered redrive needs; see the top of this file. */
export const unfilteredRedriveGate = ({
  request,
  all,
  json,
  interactive,
}: GateInput): UnfilteredRedriveGate => {
  if (all || request.dryRun === true || isFilteredRedrive(request)) {
    return UnfilteredRedriveGate.PROCEED;
  }
  return interactive && !json ? UnfilteredRedriveGate.CONFIRM : UnfilteredRedriveGate.REFUSE;
};

const refusal = (message: string): InvalidRequestError =>
  new InvalidRequestError("redrive request", [{ path: "", message }]);

export interface PromptStreams {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
}

/**
 * Lets an unfiltered redrive through, asking at a terminal (the question on `output`, stderr by
 * default, so stdout keeps only the report).
 * @throws InvalidRequestError when refused (a script without `--all`) or not confirmed.
 */
export const guardUnfilteredRedrive = async (
  input: GateInput,
  streams: PromptStreams = { input: process.stdin, output: process.stderr },
): Promise<void> => {
  const gate = unfilteredRedriveGate(input);
  if (gate === UnfilteredRedriveGate.PROCEED) return;
  if (gate === UnfilteredRedriveGate.REFUSE) {
    throw refusal(
      "no filter given, which would move every dead-lettered event; narrow it with " +
        "--event-id, --reason, --target, --since or --until, or pass --all to mean it",
    );
  }
  const prompt = createInterface({ input: streams.input, output: streams.output });
  // A pending question never settles when the input ends (Ctrl-D): that is a no, not a hang.
  const ended = new Promise<string>((resolve) => prompt.once("close", () => resolve("")));
  try {
    const answer = await Promise.race([
      prompt.question(
        "No filter given: this redrives every event in the dead-letter queue. Continue? [y/N] ",
      ),
      ended,
    ]);
    if (!/^y(es)?$/i.test(answer.trim())) throw refusal("not confirmed; nothing was moved");
  } finally {
    prompt.close();
  }
};

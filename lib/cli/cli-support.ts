import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { DeadLetterReason } from "../core/decide.js";
import {
  ActionRefusedError,
  ConfigurationError,
  InvalidEnvelopeError,
  InvalidPolicyError,
  InvalidRequestError,
  RicochetError,
} from "../core/errors.js";
import { targetKeyOfTyped } from "../core/target-key.js";
import { inertLines, inertText } from "../core/terminal-text.js";

/*
 * Helpers every `ricochet` command shares, so all of them fail, parse numbers and print JSON
 * the same way. A command group lives in its own `lib/cli/<group>-command.ts` exporting
 * `register…(program)`; bin/ricochet.ts only wires the groups together.
 */

/** Process exit codes of the CLI. */
export const ExitCode = {
  OK: 0,
  /** The command ran and failed (an AWS call, a missing resource, a bug). */
  FAILURE: 1,
  /** The command was asked something invalid (flags, policy, envelope): nothing was done. */
  USAGE: 2,
  /**
   * An operator action (cancel, replay) ran and was refused for some events, each with its reason
   * in the report (a delivered event cannot be cancelled); the rest was done.
   */
  REFUSED: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Commander's codes for output that is not an error (help and version were asked for). */
const NOT_AN_ERROR = new Set(["commander.helpDisplayed", "commander.version", "commander.help"]);

/**
 * The root `ricochet` command, configured so every usage error (bad flag, bad value, unknown
 * command) is one line on stderr and exit code 2. Subcommands inherit these settings, so
 * register them after calling this.
 */
export const createProgram = (version: string): Command =>
  new Command("ricochet")
    .description("Operate Ricochet, the serverless retry orchestrator.")
    .version(version)
    .showSuggestionAfterError(false)
    // One prefix for every failure, whether commander or a command reports it.
    .configureOutput({
      outputError: (text, write) => write(text.replace(/^error: /, "ricochet: ")),
    })
    .exitOverride();

/** The exit code an error thrown by a command maps to. */
const exitCodeFor = (error: unknown): ExitCode => {
  if (error instanceof CommanderError) {
    return NOT_AN_ERROR.has(error.code) || error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
  }
  if (
    error instanceof InvalidPolicyError ||
    error instanceof InvalidEnvelopeError ||
    error instanceof InvalidRequestError ||
    error instanceof ConfigurationError
  ) {
    return ExitCode.USAGE;
  }
  if (error instanceof ActionRefusedError) return ExitCode.REFUSED;
  return ExitCode.FAILURE;
};

/** One line describing an error for an operator: our messages as they are, others with a label. */
const describeError = (error: unknown): string => {
  if (error instanceof RicochetError) return error.message;
  if (error instanceof Error) return `unexpected ${error.name}: ${error.message}`;
  return `unexpected error: ${String(error)}`;
};

export interface RunStreams {
  readonly stderr: { write(text: string): unknown };
}

/**
 * Parses `argv` and runs the chosen command. Never throws: failures become one line on stderr
 * (commander has already printed its own usage errors) and the returned exit code.
 */
export const runProgram = async (
  program: Command,
  argv: readonly string[],
  streams: RunStreams = { stderr: process.stderr },
): Promise<ExitCode> => {
  try {
    await program.parseAsync([...argv]);
    return ExitCode.OK;
  } catch (error) {
    if (!(error instanceof CommanderError)) {
      const line = describeError(error).replace(/\s*\n\s*/g, " ");
      streams.stderr.write(`ricochet: ${inertText(line)}\n`);
    }
    return exitCodeFor(error);
  }
};

const WHOLE = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * Commander argument parser for a number of at least 0 (decimals allowed). Rejects NaN, signs,
 * exponents and hex, so a typo is an error and never a surprising value.
 */
export const parseNonNegativeNumber = (value: string): number => {
  const text = value.trim();
  if (!DECIMAL.test(text)) throw new InvalidArgumentError("must be a number of at least 0.");
  return Number(text);
};

/** Commander argument parser for a whole number of at least 0. */
export const parseWholeNumber = (value: string): number => {
  const text = value.trim();
  const number = Number(text);
  if (!WHOLE.test(text) || !Number.isSafeInteger(number)) {
    throw new InvalidArgumentError("must be a whole number of at least 0.");
  }
  return number;
};

/** Commander argument parser for a whole number of at least 1. */
export const parsePositiveWholeNumber = (value: string): number => {
  const number = parseWholeNumber(value);
  if (number < 1) throw new InvalidArgumentError("must be a whole number of at least 1.");
  return number;
};

/** Commander argument parser for a probability: a number from 0 to 1. */
export const parseFraction = (value: string): number => {
  const number = parseNonNegativeNumber(value);
  if (number > 1) throw new InvalidArgumentError("must be a number from 0 to 1.");
  return number;
};

/** Adds the `--json` flag every command that prints a result offers. */
export const withJsonOption = (command: Command): Command =>
  command.option("--json", "print one JSON object instead of text", false);

export interface OutputStreams {
  readonly stdout: { write(text: string): unknown };
}

/** A table cell as a terminal shows it: absent is empty, every control character inert. */
export const cellText = (value: unknown): string =>
  value === undefined || value === null ? "" : inertText(String(value));

/** A table row of cells as {@link cellText} shows them. */
export const inertRow = (cells: readonly unknown[]): string[] => cells.map(cellText);

/**
 * Prints a command's result: exactly one JSON document (and a newline) with `--json`, so the
 * output can be piped to `jq`; otherwise the human rendering, with every control character but
 * its line feeds made inert (lib/core/terminal-text.ts): renderers show producers' and
 * receivers' text, and a terminal obeys the escape sequences such text may hold.
 */
export const printResult = <T>(
  result: T,
  options: { readonly json: boolean; readonly human: (result: T) => string },
  streams: OutputStreams = { stdout: process.stdout },
): void => {
  const text = options.json ? JSON.stringify(result) : inertLines(options.human(result));
  streams.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
};

/**
 * `--target <key>`: narrows a command to one target's events. Takes a key as `ricochet targets`
 * prints it, or an HTTP URL, whose origin's key is meant.
 */
export const targetOption = (): Option =>
  new Option(
    "--target <key>",
    "only events to this target: a key from `ricochet targets`, or a URL (its origin)",
  ).argParser((value: string): string => {
    const key = targetKeyOfTyped(value);
    if (key === undefined) throw new InvalidArgumentError("must be a target key or a valid URL.");
    return key;
  });

/** `--reason <reason...>`: narrows a dead-letter command to these reasons (`dlq list`, `redrive`). */
export const deadLetterReasonOption = (): Option =>
  new Option("--reason <reason...>", "only these reasons").choices(Object.values(DeadLetterReason));

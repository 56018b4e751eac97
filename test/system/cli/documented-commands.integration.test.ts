import { describe, expect, it } from "vitest";
import { runCli } from "../../cli/run-cli.js";
import { readUserDocuments } from "../../support/user-documents.js";

/*
 * The README and docs/ teach operators the CLI by example (a command line, or a transcript's line
 * after `$ `). Each example's command must exist and take every option the example passes, or the
 * guide has drifted from the code: this asks the CLI for the command's help and looks for each
 * option in it.
 */

interface DocumentedCommand {
  /** Where it was found, for the failure message. */
  readonly source: string;
  /** The words naming the command, e.g. ["dlq", "list"]. */
  readonly command: readonly string[];
  readonly options: readonly string[];
}

/** Words that name a (sub)command rather than an argument to it. */
const isCommandWord = (word: string): boolean => /^[a-z][a-z-]*$/.test(word);

/** Lines with their 1-based numbers; a trailing backslash continues a line onto the next. */
const logicalLines = (text: string): { line: string; number: number }[] => {
  const result: { line: string; number: number }[] = [];
  let pending: { line: string; number: number } | undefined;
  text.split("\n").forEach((raw, index) => {
    const current = pending ?? { line: "", number: index + 1 };
    current.line += raw.replace(/\\\s*$/, " ");
    pending = /\\\s*$/.test(raw) ? current : undefined;
    if (pending === undefined) result.push(current);
  });
  return result;
};

const documentedCommands = (): DocumentedCommand[] =>
  readUserDocuments().flatMap(({ path, text }) =>
    logicalLines(text).flatMap(({ line, number }) => {
      const match = /^\s*(?:\$ )?npx ricochet ((?:(?! #).)*)/.exec(line);
      if (match === null) return [];
      const words = (match[1] ?? "").trim().split(/\s+/);
      const command: string[] = [];
      for (const word of words) {
        if (!isCommandWord(word)) break;
        command.push(word);
      }
      const options = words
        .filter((word) => word.startsWith("--"))
        .map((word) => word.split("=")[0] ?? word);
      return [{ source: `${path}:${number}`, command, options }];
    }),
  );

describe("the CLI examples in the README and docs/", () => {
  const commands = documentedCommands();

  it("are found (a scan that finds none would check nothing)", () => {
    expect(commands.length).toBeGreaterThanOrEqual(8);
  });

  it.each(commands.map((c) => [`${c.source}: ricochet ${c.command.join(" ")}`, c] as const))(
    "%s takes every option the example passes",
    async (_name, { command, options }) => {
      const help = await runCli([...command, "--help"]);
      expect(help.code).toBe(0);
      const offered = new Set(help.stdout.match(/--[a-z][a-z-]*/g) ?? []);
      expect(options.filter((option) => !offered.has(option))).toEqual([]);
    },
    60_000,
  );
});

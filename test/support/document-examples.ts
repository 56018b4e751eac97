import { readUserDocuments } from "./user-documents.js";

/*
 * The examples the README and docs/ give, found the way a reader finds them: fenced code blocks,
 * their language, and the lines of shell they show.
 */

/** A fenced code block of a user document. */
export interface CodeBlock {
  /** `path:line` of the opening fence. */
  readonly source: string;
  readonly path: string;
  /** 1-based line of the block's first line of code. */
  readonly line: number;
  /** The fence's info string (`sh`, `json`, or empty). */
  readonly language: string;
  readonly code: string;
  /** The document's text before the block: what the reader was told just before. */
  readonly before: string;
  /** The document's text after the block, up to the next block. */
  readonly after: string;
}

/** Every fenced code block of every user document. */
export const codeBlocks = (): CodeBlock[] =>
  readUserDocuments().flatMap(({ path, text }) => {
    const lines = text.split("\n");
    const fences = lines.flatMap((line, index) => (line.startsWith("```") ? [index] : []));
    const blocks: CodeBlock[] = [];
    for (let i = 0; i + 1 < fences.length; i += 2) {
      const open = fences[i] ?? 0;
      const close = fences[i + 1] ?? 0;
      blocks.push({
        source: `${path}:${open + 1}`,
        path,
        line: open + 2,
        language: /^```(\S*)/.exec(lines[open] ?? "")?.[1] ?? "",
        code: lines.slice(open + 1, close).join("\n"),
        before: lines
          .slice(fences[i - 1] === undefined ? 0 : (fences[i - 1] ?? 0) + 1, open)
          .join("\n"),
        after: lines.slice(close + 1, fences[i + 2] ?? lines.length).join("\n"),
      });
    }
    return blocks;
  });

/** A shell command line a document gives: in a shell block, or after `$ ` in a transcript. */
export interface ShellLine {
  readonly source: string;
  /** The command as a reader would type it, continuation lines joined, comment removed. */
  readonly command: string;
  /** The comment written after it, or on the lines just above it in its block. */
  readonly comment: string;
}

/** Whether the text has a quote opened and not closed (a command continuing on the next line). */
const openQuote = (text: string): boolean => {
  let quote: string | undefined;
  for (const c of text) {
    if (quote === undefined && (c === "'" || c === '"')) quote = c;
    else if (c === quote) quote = undefined;
  }
  return quote !== undefined;
};

/** `text` without a trailing ` # comment` outside quotes, and that comment. */
const splitComment = (text: string): { command: string; comment: string } => {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quote === undefined && (c === "'" || c === '"')) quote = c;
    else if (c === quote) quote = undefined;
    else if (quote === undefined && c === "#" && (i === 0 || /\s/.test(text[i - 1] ?? ""))) {
      return { command: text.slice(0, i).trim(), comment: text.slice(i + 1).trim() };
    }
  }
  return { command: text.trim(), comment: "" };
};

const isShell = (block: CodeBlock): boolean => ["sh", "bash", "shell"].includes(block.language);

/** Every shell line of one block, in order. */
export const blockShellLines = (block: CodeBlock): ShellLine[] => {
  const result: ShellLine[] = [];
  // What continues on the next line, and how: inside a quote the newline is part of the text; a
  // trailing backslash joins the lines, as the shell does.
  let pending: { text: string; line: number; separator: string } | undefined;
  let commentAbove = "";
  block.code.split("\n").forEach((raw, index) => {
    const line = block.line + index;
    const prompt = /^\s*\$ (.*)$/.exec(raw);
    if (!isShell(block) && prompt === null && pending === undefined) return;
    const text =
      pending === undefined ? (prompt?.[1] ?? raw) : `${pending.text}${pending.separator}${raw}`;
    const start = pending?.line ?? line;
    // A comment line ends where it ends, whatever quote it holds (an apostrophe: "Docker's").
    const commentLine = pending === undefined && /^\s*#/.test(text);
    if (!commentLine && openQuote(text)) {
      pending = { text, line: start, separator: "\n" };
      return;
    }
    if (!commentLine && /\\\s*$/.test(text)) {
      pending = { text: text.replace(/\\\s*$/, ""), line: start, separator: "" };
      return;
    }
    pending = undefined;
    const { command, comment } = splitComment(text);
    if (command === "") {
      commentAbove = comment === "" ? "" : `${commentAbove} ${comment}`.trim();
      return;
    }
    result.push({
      source: `${block.path}:${start}`,
      command,
      comment: [commentAbove, comment].filter(Boolean).join(" "),
    });
    commentAbove = "";
  });
  return result;
};

/** Every shell command line the user documents give. */
export const shellLines = (): ShellLine[] => codeBlocks().flatMap(blockShellLines);

/** A JSON document an example shows: a JSON block, or JSON quoted in a shell line. */
export interface JsonExample {
  readonly source: string;
  /** The text as written (a `jsonc` block's comments included). */
  readonly text: string;
  /** What the reader is told about it: the text around the block, or the line's comment. */
  readonly context: string;
}

/** Every JSON document the user documents give. */
export const jsonExamples = (): JsonExample[] => {
  const blocks = codeBlocks();
  const fenced = blocks
    .filter((block) => block.language === "json" || block.language === "jsonc")
    .map((block) => ({
      source: block.source,
      text: block.code,
      context: `${block.before.split("\n\n").at(-1) ?? ""}\n${block.after.split("\n\n")[0] ?? ""}`,
    }));
  const quoted = shellLines().flatMap((line) => {
    const found = /(?:^|\s)'(\{.*\})'/.exec(line.command);
    return found?.[1] === undefined || !line.command.startsWith("echo ")
      ? []
      : [{ source: line.source, text: found[1], context: line.comment }];
  });
  return [...fenced, ...quoted];
};

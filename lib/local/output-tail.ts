import type { Readable } from "node:stream";

/** The last lines a process wrote, kept so a start-up failure can show why. */
export interface OutputTail {
  text(): string;
}

/** Keeps the last `maxLines` lines written to the given streams. */
export const tailOutput = (streams: readonly (Readable | null)[], maxLines = 30): OutputTail => {
  const lines: string[] = [];
  let partial = "";
  for (const stream of streams) {
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      lines.push(...parts);
      if (lines.length > maxLines) lines.splice(0, lines.length - maxLines);
    });
  }
  return { text: () => [...lines, partial].join("\n").trim() };
};

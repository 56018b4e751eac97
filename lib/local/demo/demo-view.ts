import { isTerminal } from "../../core/status.js";
import { formatSeconds } from "../../core/time-format.js";
import type { DemoEvent } from "./demo-scenario.js";
import type { DemoSnapshot } from "./demo-snapshot.js";

/** Event rows shown at most, however tall the terminal; the rest are summed up by status. */
const MAX_ROWS = 18;

/** Lines of a frame besides its event rows and notes: header, "… and n more", blank, counts. */
const FRAME_LINES = 4;

/** Lays rows out in columns as wide as their widest cell, none cut; the last is not padded. */
const columns = (rows: readonly (readonly string[])[]): string[] => {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join(" ")
      .trimEnd(),
  );
};

/** When the next attempt is due, from the record's `nextAttemptAt`. */
const countdown = (nextAttemptAt: string | undefined, nowMs: number): string => {
  if (nextAttemptAt === undefined) return "";
  const seconds = (Date.parse(nextAttemptAt) - nowMs) / 1000;
  if (seconds <= 0) return "due";
  return `in ${seconds < 60 ? `${seconds.toFixed(1)}s` : formatSeconds(seconds)}`;
};

/**
 * The live view's text: one row per event (status, attempts, countdown to the next attempt),
 * events still moving first, then a count per status and the queue's live messages. It leaves
 * out event rows rather than be taller than `screenRows` (the terminal's height) less one.
 */
export const renderDemoView = (
  events: readonly DemoEvent[],
  snapshot: DemoSnapshot,
  footer: readonly string[],
  screenRows: number = Number.POSITIVE_INFINITY,
): string => {
  const rows = events.map((event) => ({ event, record: snapshot.records.get(event.eventId) }));
  const moving = rows.filter((r) => r.record === undefined || !isTerminal(r.record.status));
  const settled = rows.filter((r) => r.record !== undefined && isTerminal(r.record.status));
  // A frame taller than the screen scrolls, and the part scrolled off can never be redrawn.
  const fit = Math.max(1, Math.min(MAX_ROWS, screenRows - 1 - FRAME_LINES - footer.length));
  const shown = [...moving, ...settled].slice(0, fit);
  const table = [["event", "behaviour", "status", "attempts", "next"]];
  for (const { event, record } of shown) {
    const status = record === undefined ? "queued" : record.status;
    const redriven = record !== undefined && record.redrives > 0 ? " (redriven)" : "";
    const next = isTerminal(record?.status ?? "pending")
      ? ""
      : countdown(record?.nextAttemptAt, snapshot.takenAtMs);
    table.push([
      event.eventId,
      event.behaviour,
      status + redriven,
      String(record?.attempts ?? 0),
      next,
    ]);
  }
  const lines = columns(table);
  if (rows.length > shown.length) lines.push(`… and ${rows.length - shown.length} more`);
  const byStatus = new Map<string, number>();
  for (const { record } of rows) {
    const status = record?.status ?? "queued";
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }
  lines.push(
    "",
    [...byStatus].map(([status, n]) => `${status}: ${n}`).join("  ") +
      `   live messages: ${snapshot.liveMessages}`,
    ...footer,
  );
  return `${lines.join("\n")}\n`;
};

/** What {@link createInPlaceWriter} writes to: a terminal, whose size it reads at each frame. */
export type Screen = Pick<NodeJS.WriteStream, "write" | "columns" | "rows">;

/**
 * Redraws a block of text in place on a terminal: cursor up over the previous block, clear to the
 * end of the screen, write. Only what fits can be redrawn, so each line is cut to the width (a
 * wrapped line takes two rows the count would miss) and the block to the height less one (rows
 * scrolled off the top stay behind as a stale frame).
 */
export const createInPlaceWriter = (screen: Screen) => {
  let previousLines = 0;
  return (text: string): void => {
    const width = Math.max(1, (screen.columns ?? 80) - 1);
    const height = Math.max(1, (screen.rows ?? 24) - 1);
    const lines = text
      .replace(/\n$/, "")
      .split("\n")
      .slice(0, height)
      .map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line));
    const up = previousLines > 0 ? `\u001b[${previousLines}A` : "";
    screen.write(`${up}\r\u001b[0J${lines.join("\n")}\n`);
    previousLines = lines.length;
  };
};

import { isTerminal } from "../../core/status.js";
import { formatSeconds } from "../../core/time-format.js";
import type { DemoEvent } from "./demo-scenario.js";
import type { DemoSnapshot } from "./demo-snapshot.js";

/** Rows shown at most; the rest are summed up by status. */
const MAX_ROWS = 18;

const pad = (text: string, width: number): string => text.padEnd(width).slice(0, width);

/** When the next attempt is due, from the record's `nextAttemptAt`. */
const countdown = (nextAttemptAt: string | undefined, nowMs: number): string => {
  if (nextAttemptAt === undefined) return "";
  const seconds = (Date.parse(nextAttemptAt) - nowMs) / 1000;
  if (seconds <= 0) return "due";
  return `in ${seconds < 60 ? `${seconds.toFixed(1)}s` : formatSeconds(seconds)}`;
};

/**
 * The live view's text: one row per event (status, attempts, countdown to the next attempt),
 * events still moving first, then a count per status and the queue's live messages.
 */
export const renderDemoView = (
  events: readonly DemoEvent[],
  snapshot: DemoSnapshot,
  footer: readonly string[],
): string => {
  const rows = events.map((event) => ({ event, record: snapshot.records.get(event.eventId) }));
  const moving = rows.filter((r) => r.record === undefined || !isTerminal(r.record.status));
  const settled = rows.filter((r) => r.record !== undefined && isTerminal(r.record.status));
  const shown = [...moving, ...settled].slice(0, MAX_ROWS);
  const lines = [
    `${pad("event", 22)} ${pad("behaviour", 21)} ${pad("status", 16)} ${pad("attempts", 8)} next`,
  ];
  for (const { event, record } of shown) {
    const status = record === undefined ? "queued" : record.status;
    const redriven = record !== undefined && record.redrives > 0 ? " (redriven)" : "";
    lines.push(
      `${pad(event.eventId, 22)} ${pad(event.behaviour, 21)} ${pad(status + redriven, 16)} ${pad(String(record?.attempts ?? 0), 8)} ${isTerminal(record?.status ?? "pending") ? "" : countdown(record?.nextAttemptAt, snapshot.takenAtMs)}`,
    );
  }
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

/** Redraws a block of text in place on a terminal (cursor up over the previous block, clear). */
export const createInPlaceWriter = (stream: NodeJS.WriteStream) => {
  let previousLines = 0;
  return (text: string): void => {
    const up = previousLines > 0 ? `\u001b[${previousLines}A\u001b[0J` : "";
    stream.write(up + text);
    previousLines = text.split("\n").length - 1;
  };
};

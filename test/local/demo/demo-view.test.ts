import { describe, expect, it } from "vitest";
import type { DemoEvent } from "../../../lib/local/demo/demo-scenario.js";
import type { DemoSnapshot, RecordView } from "../../../lib/local/demo/demo-snapshot.js";
import { createInPlaceWriter, renderDemoView } from "../../../lib/local/demo/demo-view.js";

const NOW_MS = Date.parse("2030-01-01T06:00:00.000Z");

const eventsOf = (count: number): DemoEvent[] =>
  Array.from({ length: count }, (_, index) => ({
    eventId: `demo-m1x2y3z4-${String(index + 1).padStart(2, "0")}`,
    index,
    behaviour: "down_then_recovering",
    failures: 0,
  }));

const snapshotOf = (records: readonly RecordView[]): DemoSnapshot => ({
  records: new Map(records.map((r) => [r.eventId, r])),
  liveMessages: 0,
  takenAtMs: NOW_MS,
});

/** A terminal as the writer sees it: its size, and everything written to it. */
const screenOf = (columns: number, rows: number) => {
  const written: string[] = [];
  return {
    written,
    screen: {
      columns,
      rows,
      write: (text: string) => {
        written.push(text);
        return true;
      },
    },
  };
};

describe("renderDemoView (npm start's live view)", () => {
  it("shows a redriven event's whole status, never cut (issue #36)", () => {
    const [event] = eventsOf(1);
    const text = renderDemoView(
      eventsOf(1),
      snapshotOf([
        { eventId: event?.eventId ?? "", status: "retry_scheduled", attempts: 1, redrives: 1 },
      ]),
      [],
    );
    expect(text).toContain("retry_scheduled (redriven)");
  });

  it("leaves out event rows rather than be taller than the screen", () => {
    const text = renderDemoView(eventsOf(30), snapshotOf([]), ["note one", "note two"], 14);
    const lines = text.replace(/\n$/, "").split("\n");
    expect(lines.length).toBeLessThanOrEqual(13);
    expect(text).toMatch(/… and \d+ more/);
    expect(lines.at(-1)).toBe("note two");
  });
});

describe("createInPlaceWriter", () => {
  it("moves up over exactly the rows the previous frame took, its long lines cut to the width", () => {
    const { written, screen } = screenOf(40, 20);
    const write = createInPlaceWriter(screen);
    write(`short\n${"x".repeat(100)}\nlast\n`);
    write("next frame\n");
    expect(written[1]?.startsWith("\u001b[3A")).toBe(true);
    // The first frame has no cursor movement before it: only its clear-to-end code.
    const firstFrame = (written[0] ?? "").replace("\r\u001b[0J", "").split("\n");
    for (const line of firstFrame) expect(line.length).toBeLessThan(40);
  });

  it("never writes a frame taller than the screen, whose top could not be redrawn", () => {
    const { written, screen } = screenOf(80, 10);
    const write = createInPlaceWriter(screen);
    write(`${Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n")}\n`);
    write("next\n");
    expect((written[0] ?? "").split("\n").length - 1).toBe(9);
    expect(written[1]?.startsWith("\u001b[9A")).toBe(true);
  });
});

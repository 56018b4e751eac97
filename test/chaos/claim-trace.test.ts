import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  claimTraceFile,
  readClaimTraces,
  traceAsk,
  traceClaim,
  traceResult,
  traceUnrecorded,
} from "./claim-trace.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true });
});

describe("the claim trace", () => {
  it("counts claims, takeovers and results per event over every worker's file, skipping a line a kill cut short", () => {
    const directory = mkdtempSync(join(tmpdir(), "claim-trace-"));
    directories.push(directory);
    const first = claimTraceFile(directory, "worker-0.0");
    const second = claimTraceFile(directory, "worker-1.0");
    traceClaim(first, { eventId: "e1", attempt: 1, generation: 0, takeover: false });
    traceClaim(second, { eventId: "e1", attempt: 2, generation: 0, takeover: true });
    traceResult(second, "e1");
    traceClaim(first, { eventId: "e2", attempt: 2, generation: 1, takeover: true });
    traceUnrecorded(first, "e3");
    appendFileSync(second, '{"kind":"claim","eventId":"e1","attempt":3,"gene');
    const traces = readClaimTraces(directory);
    expect(Object.fromEntries(traces.takeovers)).toEqual({ e1: 1, e2: 1 });
    expect(Object.fromEntries(traces.claims)).toEqual({ e1: 2, e2: 1 });
    expect(Object.fromEntries(traces.results)).toEqual({ e1: 1 });
    expect(traces.acknowledged).toEqual([{ eventId: "e3", recorded: false }]);
  });

  it("counts a claim asked but never answered, a kill's cut, as one that may have landed", () => {
    const directory = mkdtempSync(join(tmpdir(), "claim-trace-"));
    directories.push(directory);
    const file = claimTraceFile(directory, "worker-0.0");
    traceAsk(file, "asking", "answered-refused", 1);
    traceAsk(file, "answered", "answered-refused", 1);
    traceAsk(file, "asking", "cut", 2);
    traceAsk(file, "asking", "answered-claimed", 3);
    traceClaim(file, { eventId: "answered-claimed", attempt: 1, generation: 0, takeover: false });
    traceAsk(file, "answered", "answered-claimed", 3);

    const traces = readClaimTraces(directory);
    expect(Object.fromEntries(traces.claims)).toEqual({ cut: 1, "answered-claimed": 1 });
  });
});

import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claimTraceFile, readTakeovers, traceClaim } from "./claim-trace.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true });
});

describe("the claim trace", () => {
  it("counts takeovers per event over every worker's file, skipping a line a kill cut short", () => {
    const directory = mkdtempSync(join(tmpdir(), "claim-trace-"));
    directories.push(directory);
    const first = claimTraceFile(directory, "worker-0.0");
    const second = claimTraceFile(directory, "worker-1.0");
    traceClaim(first, { eventId: "e1", attempt: 1, generation: 0, takeover: false });
    traceClaim(second, { eventId: "e1", attempt: 2, generation: 0, takeover: true });
    traceClaim(first, { eventId: "e2", attempt: 2, generation: 1, takeover: true });
    appendFileSync(second, '{"eventId":"e1","attempt":3,"gene');
    expect(Object.fromEntries(readTakeovers(directory))).toEqual({ e1: 1, e2: 1 });
  });
});

import { describe, expect, it } from "vitest";
import {
  ENVELOPE_HEADROOM_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_PAYLOAD_DEPTH,
} from "../../lib/core/envelope.js";
import {
  ORCHESTRATOR_ONLY_CHECKS,
  OrchestratorOnlyChecks,
} from "../../lib/core/orchestrator-only-checks.js";
import { MAX_SCHEDULE_AHEAD_SECONDS } from "../../lib/core/schedule.js";

describe("the checks only the orchestrator can make", () => {
  it("have one id each", () => {
    const ids = ORCHESTRATOR_ONLY_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("state the limits the validator enforces", () => {
    expect(OrchestratorOnlyChecks.PAYLOAD_DEPTH.rule).toContain(`${MAX_PAYLOAD_DEPTH} levels`);
    expect(MAX_MESSAGE_BYTES).toBe(1024 * 1024);
    expect(ENVELOPE_HEADROOM_BYTES).toBe(8 * 1024);
    expect(OrchestratorOnlyChecks.MESSAGE_SIZE.rule).toContain("1 MiB less 8 KiB");
    expect(OrchestratorOnlyChecks.SCHEDULE.rule).toContain(
      `${MAX_SCHEDULE_AHEAD_SECONDS / 86_400} days ahead`,
    );
  });
});

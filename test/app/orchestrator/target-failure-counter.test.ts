import { describe, expect, it } from "vitest";
import { createTargetFailureCounter } from "../../../lib/app/orchestrator/target-failure-counter.js";
import { FAILURE_FLUSH_MS } from "../../../lib/core/breaker-cache.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../../lib/core/circuit-breaker.js";
import { silentLog } from "../../../lib/core/observability.js";
import type { CountFailureRequest, TargetStateStore } from "../../../lib/core/ports.js";
import { createMemoryTargetStateStore } from "../../simulation/memory-target-state-store.js";
import { FIXED_NOW_MS } from "../../support/factories.js";

const KEY = "http:https://partner.example:443";

/** A counter over a memory store that records every count it is asked to write. */
const world = () => {
  const memory = createMemoryTargetStateStore();
  const counts: CountFailureRequest[] = [];
  const store: TargetStateStore = {
    ...memory,
    countFailure: (request) => {
      counts.push(request);
      return memory.countFailure(request);
    },
  };
  const time = { nowMs: FIXED_NOW_MS };
  const counter = createTargetFailureCounter({
    store,
    settingsFor: () => DEFAULT_BREAKER_SETTINGS,
    clock: () => time.nowMs,
    log: silentLog,
  });
  return { memory, counts, time, counter };
};

describe("target failure counter (breakers off)", () => {
  it("lets every call through and writes nothing for successful calls", async () => {
    const { counts, counter } = world();
    for (let i = 0; i < 20; i += 1) {
      expect(await counter.admit(KEY)).toEqual({ verdict: "call" });
      await counter.recordCall(KEY, false, "call");
    }
    expect(counts).toEqual([]);
  });

  it("writes a target's first failure at once, then at most one count per flush interval", async () => {
    const { counts, time, counter, memory } = world();
    await counter.recordCall(KEY, true, "call", "HTTP 503: down");
    await counter.recordCall(KEY, false, "call");
    await counter.recordCall(KEY, true, "call", "HTTP 503: still down");
    expect(counts).toHaveLength(1);
    time.nowMs += FAILURE_FLUSH_MS;
    await counter.recordCall(KEY, true, "call", "HTTP 502: gateway");
    expect(counts.map((c) => [c.failures, c.successes])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    const [listed] = await memory.list(10);
    expect(listed?.breaker).toMatchObject({ calls: 4, failures: 3, state: "closed" });
    expect(listed?.notes?.lastError).toBe("HTTP 502: gateway");
  });
});

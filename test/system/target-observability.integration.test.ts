import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createDynamoTargetStateStore } from "../../lib/adapters/dynamo-target-state-store.js";
import { ENV } from "../../lib/contract/environment.js";
import { MetricName, OTHER_TARGETS } from "../../lib/contract/metric-names.js";
import { FAILURE_FLUSH_MS } from "../../lib/core/breaker-cache.js";
import { EventStatus } from "../../lib/core/status.js";
import { naturalTargetKey } from "../../lib/core/target-key.js";
import { useOrchestratorHarness } from "../support/orchestrator-harness.js";

/*
 * What operators are told about a failing target, end to end: real workers, the real queues and
 * table on the emulators, a receiver answering 503.
 */
const h = useOrchestratorHarness("tobs");

describe("a failing target, as operators see it", () => {
  it("counts outcomes under the named target's dimension, keeps the last error and reports the outage's age when turning events away", async () => {
    const key = naturalTargetKey({ type: "http", url: h.baseUrl });
    const once = { maxAttempts: 1 };
    h.script({ "warm-up": [200], "down-1": [503], "down-2": [503], "down-3": [503] });
    await h.startWorkers({
      env: {
        [ENV.CIRCUIT_BREAKER]: JSON.stringify({ minimumCalls: 2, openMs: 60_000 }),
        [ENV.TARGET_METRICS]: `${key},group:somebody-else`,
      },
    });
    // A worker that has just begun counting a target holds its failures for a flush interval;
    // one that has called it a while writes the first at once, with the success it saw.
    await h.submit([h.envelope("warm-up", once)]);
    await h.waitForStatus("warm-up", EventStatus.DELIVERED);
    await sleep(FAILURE_FLUSH_MS);
    await h.submit([h.envelope("down-1", once), h.envelope("down-2", once)]);
    await h.waitForStatus("down-1", EventStatus.DEAD_LETTERED);
    await h.waitForStatus("down-2", EventStatus.DEAD_LETTERED);

    await h.submit([h.envelope("down-3", once)]);
    await h.waitFor(() => h.metrics.get(MetricName.DEFERRED) >= 1);

    expect(h.receiver.callsFor("down-3")).toHaveLength(0);
    const counts = h.metrics.targetCounts;
    expect([...counts.keys()]).toEqual([key]);
    expect(counts.get(key)?.get(MetricName.DEAD_LETTERED)).toBe(2);
    expect(counts.get(key)?.get(MetricName.DEFERRED)).toBe(1);
    expect(counts.has(OTHER_TARGETS)).toBe(false);
    const ages = h.metrics.timings.get(MetricName.BREAKER_OPEN_AGE) ?? [];
    expect(ages).toHaveLength(1);
    expect(ages[0]).toBeGreaterThanOrEqual(0);
    // Turned away while open: within the open time of the opening.
    expect(ages[0]).toBeLessThan(60_000);

    const [listed] = await createDynamoTargetStateStore({
      doc: h.clients.documents,
      tableName: h.tableName,
    }).list(10);
    expect(listed).toMatchObject({
      key,
      // The first failure and the success before it open the breaker (half of two calls); the
      // other failure, held meanwhile, belongs to the closed state that ended.
      breaker: { state: "open", calls: 2, failures: 1 },
      notes: { lastError: "HTTP 503: status 503", deferred: 1 },
    });
  });
});

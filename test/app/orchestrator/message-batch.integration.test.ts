import { describe, expect, it } from "vitest";
import { EventStatus } from "../../../lib/core/status.js";
import { recordRequests } from "../../adapters/sqs-test-support.js";
import { useOrchestratorHarness } from "../../support/orchestrator-harness.js";

/*
 * A batch's sends, end to end: the real poller hands the orchestrator one batch, and what its
 * retries cost is read on the wire.
 */
const batches = recordRequests("SendMessageBatch");
const singles = recordRequests("SendMessage");
const h = useOrchestratorHarness("batch-sends", () => ({
  middleware: [batches.middleware, singles.middleware],
}));

const fast = { baseDelaySeconds: 1, multiplier: 1, maxDelaySeconds: 1, jitter: "none" as const };

/** The entries of every request that sent to the internal queue. */
const internalSends = () => ({
  batchSizes: batches.bodies
    .filter((body) => body.QueueUrl === h.queues.internalQueueUrl)
    .map((body) => (body.Entries as unknown[]).length),
  singles: singles.bodies.filter((body) => body.QueueUrl === h.queues.internalQueueUrl).length,
});

describe("a batch's sends", () => {
  it("sends the retries of one batch in one request although their calls fail 80 ms apart", async () => {
    const ids = ["spread-0", "spread-1", "spread-2", "spread-3"];
    // Each event's first call fails after its own delay: 80 ms apart, far beyond the 10 ms window,
    // and all within the gathering's 500 ms cap with room to spare on a loaded machine.
    h.script((eventId, callIndex) =>
      callIndex === 0 ? { status: 503, delayMs: 80 * ids.indexOf(eventId) } : { status: 200 },
    );
    // Submitted before the workers start, so that one receive takes the four as one batch.
    await h.submit(ids.map((id) => h.envelope(id, fast)));
    await h.startWorkers();
    for (const id of ids) await h.waitForStatus(id, EventStatus.DELIVERED);

    expect(ids.map((id) => h.receiver.callsFor(id).length)).toEqual([2, 2, 2, 2]);
    expect(internalSends()).toEqual({ batchSizes: [4], singles: 0 });
  });
});

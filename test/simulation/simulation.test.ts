import { describe, expect, it } from "vitest";
import { Invariant } from "./invariants.js";
import { MemoryQueue, StaleReceipt } from "./memory-queue.js";
import { runSimulation } from "./simulation.js";

const SEEDS = Array.from({ length: 50 }, (_, i) => 1000 + i);

describe("simulation of the orchestrator and redrive under seeded faults", () => {
  it("keeps every guarantee over 50 seeded runs", async () => {
    const violations = [];
    let crashes = 0;
    let redriven = 0;
    for (const seed of SEEDS) {
      const result = await runSimulation({ seed });
      violations.push(...result.violations);
      crashes += result.crashes;
      redriven += result.redriven;
    }
    expect(violations).toEqual([]);
    // A run without faults or redrives would prove nothing.
    expect(crashes).toBeGreaterThan(50);
    expect(redriven).toBeGreaterThan(50);
  });

  it("replays a seed exactly", async () => {
    const first = await runSimulation({ seed: 7 });
    const second = await runSimulation({ seed: 7 });
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });

  it("detects a store that ignores leases", async () => {
    const caught = [];
    for (let seed = 1; seed <= 5; seed += 1) {
      const result = await runSimulation({ seed, brokenStore: "ignore_leases" });
      caught.push(...result.violations.map((v) => v.invariant));
    }
    expect(caught).toContain(Invariant.NO_OVERLAP);
  });

  // Regression seed: a Lambda target's 60 s timeout did not fit a 60 s function, so its message
  // was drained on every receive until maxReceiveCount parked it raw in the dead-letter queue.
  // Calls are now cut to what an invocation can afford.
  it("does not lose events to Lambda targets under the default function timeout", async () => {
    const result = await runSimulation({ seed: 9, lambdaTargets: true });
    expect(result.violations).toEqual([]);
  });

  // Regression seed: at a 10 % fault rate a message that crashes its worker maxReceiveCount
  // times is parked raw by the queue's native redrive with its record stuck in_flight. Redrive
  // now reads such a body as `unprocessed` and brings the stranded event back.
  it("brings back an event whose message crashed its workers maxReceiveCount times", async () => {
    const result = await runSimulation({ seed: 5090, faultRate: 0.1 });
    expect(result.violations).toEqual([]);
  });
});

describe("memory queue", () => {
  const queueAt = (staleReceipt: StaleReceipt) => {
    let now = 0;
    const queue = new MemoryQueue({ name: "q", clock: () => now, staleReceipt });
    return { queue, advance: (ms: number) => (now += ms) };
  };

  it.each([
    [StaleReceipt.AS_SQS, false],
    [StaleReceipt.REJECT, true],
  ] as const)(
    "with stale receipts %s, deleting by an old handle keeps the message (throws: %s)",
    (mode, throws) => {
      const { queue, advance } = queueAt(mode);
      queue.send("body", { generation: 0 }, 0);
      const [first] = queue.receive(1, 1);
      advance(1_000);
      const [second] = queue.receive(1, 1);
      expect(second?.receiptHandle).not.toBe(first?.receiptHandle);
      const attempt = () => queue.delete(first?.receiptHandle ?? "");
      if (throws) expect(attempt).toThrow();
      else attempt();
      expect(queue.size()).toBe(1);
      queue.delete(second?.receiptHandle ?? "");
      expect(queue.size()).toBe(0);
    },
  );

  it("hides a message until its delay and visibility timeout pass", () => {
    const { queue, advance } = queueAt(StaleReceipt.AS_SQS);
    queue.send("body", { generation: 0 }, 2);
    expect(queue.receive(10, 30)).toHaveLength(0);
    advance(2_000);
    expect(queue.receive(10, 30)).toHaveLength(1);
    advance(29_999);
    expect(queue.receive(10, 30)).toHaveLength(0);
    advance(1);
    expect(queue.receive(10, 30)[0]?.receiveCount).toBe(2);
  });
});

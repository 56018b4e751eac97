import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  type NoisyTargets,
  startNoisyTargets,
  TargetKind,
} from "../../bench/noisy-neighbour/noisy-targets.js";

/** How one call ended: its status, or the error code that ended it. */
const call = async (baseUrl: string, eventId: string, timeoutMs = 200): Promise<string> => {
  try {
    const response = await fetch(`${baseUrl}/${eventId}`, {
      method: "POST",
      body: "{}",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return String(response.status);
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return cause ?? (error as Error).name;
  }
};

describe("noisy targets", () => {
  let targets: NoisyTargets | undefined;
  afterEach(async () => {
    await targets?.stop();
    targets = undefined;
  });

  it("take the down target from refused to hanging to answering, counting its calls while down", async () => {
    targets = await startNoisyTargets({
      kinds: [TargetKind.DOWN, TargetKind.HEALTHY],
      slowMs: 0,
      outage: { refusedMs: 300, hangingMs: 1_500 },
    });
    const [down, healthy] = targets.targets;
    if (down === undefined || healthy === undefined) throw new Error("two targets expected");
    targets.startOutage();
    expect(await call(down.baseUrl, "d1")).toBe("ECONNREFUSED");
    expect(await call(healthy.baseUrl, "h1")).toBe("200");
    await sleep(400);
    expect(await call(down.baseUrl, "d1")).toBe("TimeoutError");
    expect(targets.recoveredAt()).toBeUndefined();
    await sleep(1_300);
    expect(await call(down.baseUrl, "d1")).toBe("200");
    const recoveredAt = targets.recoveredAt();
    expect(recoveredAt).toBeDefined();
    // One refused connection, one request left hanging; the healthy target's call is not one.
    expect(targets.callsWhileDown).toHaveLength(2);
    expect(targets.deliveredAt.get("d1")).toBeGreaterThanOrEqual(recoveredAt ?? 0);
    expect(targets.deliveredAt.has("h1")).toBe(true);
  });

  it("answer the slow target's calls only after its delay", async () => {
    targets = await startNoisyTargets({ kinds: [TargetKind.SLOW], slowMs: 300 });
    const [slow] = targets.targets;
    if (slow === undefined) throw new Error("one target expected");
    const startedAt = Date.now();
    expect(await call(slow.baseUrl, "s1", 2_000)).toBe("200");
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
    expect(targets.calls.get("s1")).toHaveLength(1);
  });

  it("refuse a down target without an outage to run", async () => {
    await expect(startNoisyTargets({ kinds: [TargetKind.DOWN], slowMs: 0 })).rejects.toThrow(
      /needs an outage/,
    );
  });
});

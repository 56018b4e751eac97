import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { benchEnvelope } from "../../bench/contender.js";
import { breakerCaller, opossumOptionsFor } from "../../bench/contenders/powertools-breaker.js";
import { DEFAULT_NOISY_SETTINGS } from "../../bench/noisy-neighbour/noisy-neighbour.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";

describe("opossumOptionsFor", () => {
  it.each([
    [
      "the noisy neighbour's breaker",
      DEFAULT_NOISY_SETTINGS.breaker,
      3_000,
      {
        timeout: 3_000,
        errorThresholdPercentage: 50,
        volumeThreshold: 5,
        rollingCountTimeout: 10_000,
        resetTimeout: 2_000,
      },
    ],
    [
      "Ricochet's defaults",
      DEFAULT_BREAKER_SETTINGS,
      10_000,
      {
        timeout: 10_000,
        errorThresholdPercentage: 50,
        volumeThreshold: 10,
        rollingCountTimeout: 60_000,
        resetTimeout: 30_000,
      },
    ],
  ])("gives opossum the settings of %s", (_name, settings, timeoutMs, expected) => {
    expect(opossumOptionsFor(settings, timeoutMs)).toEqual(expected);
  });
});

describe("breakerCaller", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    servers.length = 0;
  });

  /** A loopback server that answers 200 and counts the calls it got. */
  const healthyOrigin = async () => {
    let calls = 0;
    const server = createServer((request, response) => {
      calls += 1;
      request.resume();
      response.end("ok");
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { baseUrl: `http://127.0.0.1:${port}`, calls: () => calls };
  };

  /** A loopback port with nothing listening: every call is refused at once. */
  const refusedOrigin = async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    return `http://127.0.0.1:${port}`;
  };

  it("opens a target's breaker after its minimum calls fail, fails fast and holds for the reopen time", async () => {
    const settings = DEFAULT_NOISY_SETTINGS.breaker;
    const caller = breakerCaller(settings, 1_000);
    try {
      const down = await refusedOrigin();
      const healthy = await healthyOrigin();
      const envelope = (baseUrl: string, n: number) => benchEnvelope(baseUrl, `e${n}`, n);
      expect(caller.holdSeconds(envelope(down, 0))).toBe(0);
      for (let n = 0; n < settings.minimumCalls; n += 1) {
        await expect(caller.call(envelope(down, n))).rejects.toThrow();
      }
      const hold = caller.holdSeconds(envelope(down, 9));
      expect(hold).toBeGreaterThan(0);
      expect(hold).toBeLessThanOrEqual(settings.openMs / 1000);
      await expect(caller.call(envelope(down, 9))).rejects.toMatchObject({ code: "EOPENBREAKER" });
      // Another origin has its own breaker: still closed, still called.
      await expect(caller.call(envelope(healthy.baseUrl, 10))).resolves.toBe(true);
      expect(healthy.calls()).toBe(1);
      expect(caller.holdSeconds(envelope(healthy.baseUrl, 11))).toBe(0);
    } finally {
      caller.close();
    }
  });
});

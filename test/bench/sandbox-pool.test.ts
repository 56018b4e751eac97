import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSandboxPool } from "../../bench/support/sandbox-pool.js";

const gate = () => {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
};

describe("createSandboxPool", () => {
  it("reuses an idle environment, keeping what its module scope holds", async () => {
    let made = 0;
    const pool = createSandboxPool(() => ({ id: ++made, calls: 0 }));
    const first = await pool.use(async (sandbox) => ++sandbox.calls);
    const second = await pool.use(async (sandbox) => ++sandbox.calls);
    expect([first, second]).toEqual([1, 2]);
    expect(pool.all()).toHaveLength(1);
  });

  it("gives invocations that overlap environments of their own", async () => {
    const pool = createSandboxPool(() => ({ seen: [] as number[] }));
    const hold = gate();
    const running = [1, 2, 3].map((n) =>
      pool.use(async (sandbox) => {
        sandbox.seen.push(n);
        await hold.opened;
      }),
    );
    hold.open();
    await Promise.all(running);
    expect(pool.all().map((sandbox) => sandbox.seen)).toEqual([[1], [2], [3]]);
  });

  it("takes the environment freed last", async () => {
    let made = 0;
    const pool = createSandboxPool(() => ++made);
    const a = gate();
    const b = gate();
    const first = pool.use(async () => a.opened);
    const second = pool.use(async () => b.opened);
    b.open();
    await second;
    a.open();
    await first;
    // 1 was freed after 2, so 1 runs the next invocation.
    expect(await pool.use(async (id) => id)).toBe(1);
  });

  it("frees an environment whose invocation threw", async () => {
    const pool = createSandboxPool(() => ({}));
    await expect(
      pool.use(async () => {
        throw new Error("handler failed");
      }),
    ).rejects.toThrow("handler failed");
    await pool.use(async () => {});
    expect(pool.all()).toHaveLength(1);
  });

  it("never makes more environments than invocations ran at once", async () => {
    const tick = async (n: number) => {
      for (let i = 0; i < n; i += 1) await Promise.resolve();
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(20), fc.nat(5)), { minLength: 1, maxLength: 30 }),
        async (invocations) => {
          const pool = createSandboxPool(() => ({}));
          let running = 0;
          let peak = 0;
          await Promise.all(
            invocations.map(async ([startTick, ticks]) => {
              await tick(startTick);
              running += 1;
              peak = Math.max(peak, running);
              await pool.use(() => tick(ticks));
              running -= 1;
            }),
          );
          expect(pool.all().length).toBeLessThanOrEqual(peak);
          expect(pool.all().length).toBeGreaterThan(0);
        },
      ),
    );
  });
});

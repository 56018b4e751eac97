import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createFunctionConcurrency } from "../../lib/local/function-concurrency.js";

describe("createFunctionConcurrency", () => {
  it("never runs more invocations at once than its limit, and runs every one", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 30 }),
        async (limit, durations) => {
          const concurrency = createFunctionConcurrency(limit);
          let running = 0;
          let most = 0;
          const done = await Promise.all(
            durations.map((ms, i) =>
              concurrency.run(async () => {
                running += 1;
                most = Math.max(most, running);
                await sleep(ms);
                running -= 1;
                return i;
              }),
            ),
          );
          expect(done).toEqual(durations.map((_, i) => i));
          expect(most).toBeLessThanOrEqual(limit);
          expect(concurrency.peak).toBe(most);
          expect(concurrency.running).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("frees the slot of an invocation that throws", async () => {
    const concurrency = createFunctionConcurrency(1);
    await expect(concurrency.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow(
      "boom",
    );
    await expect(concurrency.run(async () => "next")).resolves.toBe("next");
  });

  it.each([0, 1.5, 1001])("refuses a limit of %f", (limit) => {
    expect(() => createFunctionConcurrency(limit)).toThrow(/whole number from 1 to 1000/);
  });
});

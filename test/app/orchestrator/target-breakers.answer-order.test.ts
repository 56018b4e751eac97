import { describe, expect, it } from "vitest";
import { createTargetBreakers } from "../../../lib/app/orchestrator/target-breakers.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../../lib/core/circuit-breaker.js";
import { silentLog } from "../../../lib/core/observability.js";
import type { TargetStateStore } from "../../../lib/core/ports.js";
import { createMemoryTargetStateStore } from "../../simulation/memory-target-state-store.js";
import { FIXED_NOW_MS } from "../../support/factories.js";

/*
 * The store's answers to one instance's concurrent writes can come back in any order: an answer
 * read before a newer one this instance already adopted must not undo it.
 */

const KEY = "http:https://suddenly-down.example:443";
const settings = { ...DEFAULT_BREAKER_SETTINGS, minimumCalls: 4, failureRateThreshold: 0.5 };

/** The store, with the first replacement's answer held back until the second's has been taken. */
const firstReplaceAnsweredLast = (): TargetStateStore => {
  const store = createMemoryTargetStateStore();
  let replaces = 0;
  let releaseFirst: (() => void) | undefined;
  return {
    ...store,
    replace: async (request) => {
      replaces += 1;
      const first = replaces === 1;
      const result = await store.replace(request);
      if (first) await new Promise<void>((resolve) => (releaseFirst = resolve));
      // A macrotask later: the second answer's caller has adopted it by then.
      else setTimeout(() => releaseFirst?.(), 0);
      return result;
    },
  };
};

describe("target breakers answered out of order", () => {
  it("keeps the open breaker it adopted when an older answer arrives after it", async () => {
    const clock = { now: FIXED_NOW_MS };
    const breakers = createTargetBreakers({
      store: firstReplaceAnsweredLast(),
      settings,
      clock: () => clock.now,
      log: silentLog,
    });
    await breakers.recordCall(KEY, false, "call");
    clock.now += 1_000;
    await breakers.recordCall(KEY, true, "call");
    // Two of these trip the breaker on what the instance knows; each writes its count, and both
    // try to open it: the first's attempt loses to the second's count, and is answered last.
    await Promise.all(
      Array.from({ length: settings.minimumCalls }, () => breakers.recordCall(KEY, true, "call")),
    );
    expect((await breakers.admit(KEY)).verdict).toBe("defer");
  });
});

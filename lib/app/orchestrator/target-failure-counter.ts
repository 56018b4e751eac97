import { FAILURE_FLUSH_MS } from "../../core/breaker-cache.js";
import { type BreakerSettings, windowStartOf } from "../../core/circuit-breaker.js";
import { errorWithName } from "../../core/errors.js";
import type { Log } from "../../core/observability.js";
import type { TargetStateStore } from "../../core/ports.js";
import type { Clock } from "../../core/random.js";
import { callEvidence } from "../../core/target-health.js";
import { targetErrorExcerpt } from "../../core/target-view.js";
import type { TargetAdmission, TargetBreakers } from "./target-breakers.js";

export interface TargetFailureCounterDeps {
  readonly store: TargetStateStore;
  /** A target's settings: its window and which timeouts count, as the breakers would read them. */
  readonly settingsFor: (key: string) => BreakerSettings;
  readonly clock: Clock;
  readonly log: Log;
}

/** What this instance counted for a target and has not written yet. */
interface HeldCounts {
  readonly successes: number;
  readonly failures: number;
  readonly lastError?: string | undefined;
  readonly writtenAtMs?: number | undefined;
}

const CALL: TargetAdmission = { verdict: "call" };
const NOTHING_HELD: HeldCounts = { successes: 0, failures: 0 };

/**
 * The breakers' face with the breakers off: every call is let through, but failures are still
 * written to the targets' items, so that `ricochet targets` and the console show which targets
 * fail. A success costs no I/O (it rides on the next failure's write); failures cost one write per
 * target per {@link FAILURE_FLUSH_MS} per instance at most, as with the breakers on. A failing
 * store only costs the count, with a warning.
 */
export const createTargetFailureCounter = (deps: TargetFailureCounterDeps): TargetBreakers => {
  const { store, clock, log, settingsFor } = deps;
  const held = new Map<string, HeldCounts>();

  const write = async (key: string, counts: HeldCounts, nowMs: number): Promise<void> => {
    // Taken out before the write: a call ending while it is in flight is held for the next.
    held.set(key, { ...NOTHING_HELD, writtenAtMs: nowMs });
    try {
      await store.countFailure({
        key,
        successes: counts.successes,
        failures: counts.failures,
        windowStartMs: windowStartOf(nowMs, settingsFor(key)),
        nowMs,
        lastError: counts.lastError,
      });
    } catch (error) {
      log.warn("target failure count not written", {
        target: key,
        error: errorWithName(error),
      });
    }
  };

  const recordCall: TargetBreakers["recordCall"] = async (key, failed, _as, error) => {
    const nowMs = clock();
    const entry = held.get(key) ?? NOTHING_HELD;
    const counts: HeldCounts = failed
      ? {
          ...entry,
          failures: entry.failures + 1,
          lastError: error === undefined ? entry.lastError : targetErrorExcerpt(error),
        }
      : { ...entry, successes: entry.successes + 1 };
    held.set(key, counts);
    const due = entry.writtenAtMs === undefined || nowMs - entry.writtenAtMs >= FAILURE_FLUSH_MS;
    if (failed && due) await write(key, counts, nowMs);
  };

  return {
    admit: async () => CALL,
    recordCall,
    abandonProbe: async () => {},
    evidenceOf: (key, call) => callEvidence(call, settingsFor(key).minCountedTimeoutMs),
  };
};

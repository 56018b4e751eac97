import {
  createTargetBreakers,
  type TargetBreakers,
} from "../../lib/app/orchestrator/target-breakers.js";
import { FAILURE_FLUSH_MS } from "../../lib/core/breaker-cache.js";
import { type BreakerSettings, DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import { silentLog } from "../../lib/core/observability.js";
import type { TargetStateStore } from "../../lib/core/ports.js";

/** An instance's breakers that have opened one target's, and a hand on their clock. */
export interface OpenedBreakers {
  readonly breakers: TargetBreakers;
  /** Sets the breakers' clock to `ms` from now on. */
  setClock(ms: number): void;
}

export interface OpenBreakerOptions {
  /** Default: the defaults, open an hour, so that it is still open however slow the run. */
  readonly settings?: BreakerSettings;
  /** When the failures start, on a clock of the test's; default: a second ago, real time. */
  readonly startMs?: number;
}

/**
 * Breakers that have opened `key`'s as an instance would against a failing target: the
 * settings' minimum of failed calls, all with `lastError`, the last one a flush interval after
 * the first (an instance new to a target holds its failures that long) — by default now.
 */
export const breakersOpenedFor = async (
  store: TargetStateStore,
  key: string,
  lastError: string,
  options: OpenBreakerOptions = {},
): Promise<OpenedBreakers> => {
  const settings = options.settings ?? {
    ...DEFAULT_BREAKER_SETTINGS,
    openMs: 3_600_000,
    maxOpenMs: 3_600_000,
  };
  const clock = {
    fixedMs: options.startMs,
    behindMs: options.startMs === undefined ? FAILURE_FLUSH_MS : 0,
  };
  const breakers = createTargetBreakers({
    store,
    settings,
    clock: () => (clock.fixedMs ?? Date.now()) - clock.behindMs,
    log: silentLog,
  });
  for (let i = 0; i < settings.minimumCalls; i += 1) {
    if (i === settings.minimumCalls - 1) {
      if (clock.fixedMs === undefined) clock.behindMs = 0;
      else clock.fixedMs += FAILURE_FLUSH_MS;
    }
    await breakers.recordCall(key, true, "call", lastError);
  }
  return {
    breakers,
    setClock: (ms) => {
      clock.fixedMs = ms;
      clock.behindMs = 0;
    },
  };
};

import { errorWithName } from "../../../core/errors.js";
import type { TargetLimitsStore } from "../../../core/ports.js";
import { slotRetryAt, slotsToTry } from "../../../core/target-limits.js";
import {
  type CallPermit,
  type LimitAdmission,
  LimitKind,
  type LimitsEnvironment,
} from "./limit-admission.js";

/** The concurrency limit's store, and the slots this instance holds per target. */
export interface SlotsContext extends LimitsEnvironment {
  readonly store: Pick<TargetLimitsStore, "takeSlot" | "releaseSlot">;
  /** At the limit, an instance defers without asking the store. */
  readonly held: Map<string, number>;
  /** Names the next call's holder of a slot, unique to this instance. */
  readonly nextHolder: () => string;
}

/** A concurrency slot `holder` took for a call to `key`. */
interface TakenSlot {
  readonly key: string;
  readonly slot: number;
  readonly holder: string;
}

/** Gives the slot back after the call; one that cannot be is held until its lease lapses. */
const permitFor = (context: SlotsContext, taken: TakenSlot): CallPermit => ({
  release: async () => {
    const { key, slot, holder } = taken;
    context.held.set(key, (context.held.get(key) ?? 1) - 1);
    try {
      await context.store.releaseSlot(key, slot, holder);
    } catch (error) {
      // The slot stays taken until its lease lapses: less capacity, never more.
      context.log.warn("could not give a target's concurrency slot back", {
        target: key,
        slot,
        error: errorWithName(error),
      });
    }
  },
});

/** A call to `key` under its concurrency limit `max`, holding a slot for at most `leaseMs`. */
export const takeSlot = async (
  context: SlotsContext,
  key: string,
  max: number,
  leaseMs: number,
): Promise<LimitAdmission> => {
  const { held, random } = context;
  const nowMs = context.clock();
  const turnedAway: LimitAdmission = {
    verdict: "defer",
    untilMs: slotRetryAt(nowMs, random),
    limit: LimitKind.CONCURRENCY,
  };
  if ((held.get(key) ?? 0) >= max) return turnedAway;
  const holder = context.nextHolder();
  const leaseUntilMs = nowMs + leaseMs;
  for (const slot of slotsToTry(max, random)) {
    const taken = await context.store.takeSlot({ key, slot, holder, nowMs, leaseUntilMs });
    if (!taken) continue;
    held.set(key, (held.get(key) ?? 0) + 1);
    return { verdict: "call", permit: permitFor(context, { key, slot, holder }) };
  }
  return turnedAway;
};

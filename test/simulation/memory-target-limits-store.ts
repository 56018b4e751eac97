import type { RateCount, SlotRequest, TargetLimitsStore } from "../../lib/core/ports.js";

/*
 * The targets' limit items in memory, for the simulation: each method one synchronous
 * read-check-write, transcribed from lib/adapters/dynamo-target-limits-store.ts (a slot is taken
 * when free or lapsed and given back only by its holder; a count adds to the counter's window if
 * it is the one asked for or later, else starts the asked one).
 */
export const createMemoryTargetLimitsStore = (): TargetLimitsStore => {
  const slots = new Map<string, { readonly holder: string; readonly leaseUntilMs: number }>();
  const rates = new Map<string, RateCount>();
  const slotId = (key: string, slot: number) => `${key}#${slot}`;

  const takeSlot = async (request: SlotRequest): Promise<boolean> => {
    const id = slotId(request.key, request.slot);
    const held = slots.get(id);
    if (held !== undefined && held.leaseUntilMs >= request.nowMs) return false;
    slots.set(id, { holder: request.holder, leaseUntilMs: request.leaseUntilMs });
    return true;
  };

  const releaseSlot = async (key: string, slot: number, holder: string): Promise<void> => {
    const id = slotId(key, slot);
    if (slots.get(id)?.holder === holder) slots.delete(id);
  };

  const countCall = async (
    key: string,
    windowStartMs: number,
    _nowMs: number,
    calls = 1,
  ): Promise<RateCount> => {
    const old = rates.get(key);
    const counted =
      old !== undefined && old.windowStartMs >= windowStartMs
        ? { windowStartMs: old.windowStartMs, count: old.count + calls }
        : { windowStartMs, count: calls };
    rates.set(key, counted);
    return counted;
  };

  return { takeSlot, releaseSlot, countCall };
};

import { admit, type BreakerSettings, nextRelease } from "../../../core/circuit-breaker.js";
import { deferralCounted } from "../../../core/pending-deferrals.js";
import type { StoredBreaker } from "../../../core/ports.js";
import { outageStartMs } from "../../../core/target-view.js";
import { type BreakersContext, failOpen, replace, viewOf, wrote } from "./breaker-writes.js";

/** What the orchestrator may do with a call to a target now. */
export type TargetAdmission =
  | { readonly verdict: "call" }
  /** A half-open breaker's probe: its result closes or reopens the breaker for everyone. */
  | { readonly verdict: "probe" }
  /**
   * Not now: defer the event to `untilMs` without spending an attempt. `outageStartMs`, when an
   * open breaker is the reason, is when it opened from closed, for the "open too long" alarm.
   */
  | {
      readonly verdict: "defer";
      readonly untilMs: number;
      readonly outageStartMs?: number | undefined;
    };

/** Counts a deferral; writes the count on its own only if nothing wrote it for a while. */
const countDeferral = async (context: BreakersContext, key: string, nowMs: number) => {
  const { pending, write } = deferralCounted(context.deferrals.get(key), nowMs);
  context.deferrals.set(key, pending);
  if (!write) return;
  try {
    await context.store.addDeferrals(key, pending.count, nowMs);
    wrote(context, key, pending.count, nowMs);
  } catch (error) {
    failOpen(context, key, "addDeferrals", error);
  }
};

/** A call turned away at `nowMs` until `untilMs`, by the breaker `stored` holds. */
interface TurnedAway {
  readonly key: string;
  readonly nowMs: number;
  readonly untilMs: number;
  readonly settings: BreakerSettings;
  readonly stored: StoredBreaker;
}

/** Every deferral is counted and joins the target's release line, so none comes back faster than the rate. */
const deferCall = async (context: BreakersContext, call: TurnedAway): Promise<TargetAdmission> => {
  const { key, stored } = call;
  await countDeferral(context, key, call.nowMs);
  const release = nextRelease(context.releases.get(key), call.untilMs, call.settings);
  context.releases.set(key, release.queue);
  const since = outageStartMs(stored.breaker, stored.notes);
  return { verdict: "defer", untilMs: release.dueMs, outageStartMs: since };
};

/** Whether a call to `key` may be made now; a half-open breaker's probe is the store's to grant. */
export const admitCall = async (
  context: BreakersContext,
  key: string,
): Promise<TargetAdmission> => {
  const settings = context.settingsOf(key);
  const nowMs = context.clock();
  const { stored } = viewOf(context, key);
  const admission = admit(stored.breaker, nowMs, settings);
  if (admission.verdict === "defer") {
    return deferCall(context, { key, nowMs, untilMs: admission.untilMs, settings, stored });
  }
  if (admission.verdict === "call") return { verdict: "call" };
  // A probe changes the shared state: only the instance whose write lands makes it.
  try {
    const change = { key, version: stored.version, breaker: admission.breaker, nowMs };
    const result = await replace(context, change);
    if (result.kind === "replaced") return { verdict: "probe" };
    const now = admit(result.stored.breaker, nowMs, settings);
    if (now.verdict === "call") return { verdict: "call" };
    const untilMs = now.verdict === "defer" ? now.untilMs : nowMs + settings.probeWaitMs;
    return await deferCall(context, { key, nowMs, untilMs, settings, stored: result.stored });
  } catch (error) {
    failOpen(context, key, "probe", error);
    return { verdict: "call" };
  }
};

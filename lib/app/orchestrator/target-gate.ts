import { BreakerState } from "../../core/circuit-breaker.js";
import { DeferralCause } from "../../core/deferral.js";
import { CallEvidence } from "../../core/target-health.js";
import type { AttemptEnd } from "./attempt.js";
import type { ClaimTaken } from "./claim-step.js";
import { deadlineOf, defer } from "./defer.js";
import type { MessageInHand } from "./message-in-hand.js";
import type { MessageVerdict, OrchestratorContext } from "./orchestrator-context.js";
import type { TargetAdmission } from "./target-breakers.js";
import { type CallPermit, type LimitAdmission, LimitKind, NO_PERMIT } from "./target-limits.js";

/*
 * Before a claim, the target's breaker and then its limits (the learned one, in memory, then the
 * declared ones, shared) are asked whether a call may go now. Either turns the event away by
 * deferring it (no claim, no attempt spent; the record says so), except past its deadline, where
 * it goes on to the claim, which dead-letters it without a call. The learned limit alone gives
 * way to the deadline: see {@link lastChance}.
 */

const CALL: TargetAdmission = { verdict: "call" };

/** What the record says of a limit that defers an event. */
const CAUSE_OF_LIMIT: Readonly<Record<LimitKind, DeferralCause>> = {
  [LimitKind.RATE]: DeferralCause.RATE_LIMIT,
  [LimitKind.CONCURRENCY]: DeferralCause.CONCURRENCY_LIMIT,
};

/** A call let through the gate: what the breaker and the limits must be told once it ends. */
export interface GatePass {
  /**
   * Runs the claim and attempt, then settles the gate: the breaker learns how the call ended, a
   * probe that made no call is given back, and the limits' slot is released whatever happened.
   */
  during(run: () => Promise<ClaimTaken>): Promise<MessageVerdict>;
}

/** The target turned the event away: here is the message's verdict. */
export interface GateDeferral {
  readonly deferred: MessageVerdict;
}

/** Gives back a half-open breaker's probe that made no call, so that another may. */
const giveBackProbe = async (
  { deps }: OrchestratorContext,
  key: string,
  admission: TargetAdmission,
): Promise<void> => {
  if (admission.verdict === "probe") await deps.breakers?.abandonProbe(key);
};

const CALL_UNLIMITED: LimitAdmission = { verdict: "call", permit: NO_PERMIT };

/** One permit releasing both: the learned limit's (in memory) and the declared limits'. */
const bothPermits = (first: CallPermit, second: CallPermit): CallPermit => ({
  release: async () => {
    await first.release();
    await second.release();
  },
});

/**
 * Whether an event the learned limit turns away is called anyway: when the deferral would reach
 * its deadline, where the claim would dead-letter it without a call. A learned limit is a guess
 * at the partner's pace (one that answers 429 at random, not from load, is guessed far too low:
 * docs/design-notes.md); a declared one is a promise to the partner and an open breaker a
 * verdict, so both still defer it to its end. The event is called once, as it would be without
 * adaptive limits, rather than lost untried.
 */
const lastChance = (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
  untilMs: number,
  deadlineMs: number | undefined,
): boolean => {
  if (deadlineMs === undefined || untilMs < deadlineMs) return false;
  ctx.deps.log.info("learned target limit passed: the event's deadline comes first", {
    eventId: inHand.envelope.eventId,
    target: inHand.target.key,
  });
  return true;
};

/**
 * The learned limit's verdict (no I/O), then, if it lets the call through (or gives way to the
 * event's deadline), the declared limits': a call turned away by the second gives the first its
 * permit back.
 */
const askLimits = async (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
  leaseMs: number,
  deadline: () => Promise<number | undefined>,
): Promise<LimitAdmission> => {
  const { deps } = ctx;
  const { key } = inHand.target;
  const asked = deps.adaptive?.admit(key) ?? CALL_UNLIMITED;
  const passed =
    asked.verdict === "defer" && lastChance(ctx, inHand, asked.untilMs, await deadline());
  const learned = passed ? CALL_UNLIMITED : asked;
  if (learned.verdict === "defer" || deps.limits === undefined) return learned;
  const declared = await deps.limits.admit(key, leaseMs).catch(async (error: unknown) => {
    await learned.permit.release();
    throw error;
  });
  if (declared.verdict === "call")
    return { verdict: "call", permit: bothPermits(learned.permit, declared.permit) };
  await learned.permit.release();
  return declared;
};

/**
 * Asks the target's limits for a call its breaker let through. Over a limit the event is
 * deferred, and a probe it held is given back so that another may; past its deadline it is not
 * deferred and goes on, holding no slot, to the claim, which dead-letters it.
 */
const admitToLimits = async (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
  admission: TargetAdmission,
): Promise<GateDeferral | { readonly permit: CallPermit }> => {
  const { key } = inHand.target;
  // The slot is taken before the claim, so its lease outlives the claim's by a margin.
  const leaseMs = inHand.callMs + 2 * ctx.deps.leaseMarginMs;
  // The record is read at most once for the deadline: by the learned limit's last chance, and
  // by the deferral after it.
  let read: Promise<number | undefined> | undefined;
  const deadline = () => {
    read ??= deadlineOf(ctx, inHand);
    return read;
  };
  const limit = await askLimits(ctx, inHand, leaseMs, deadline);
  if (limit.verdict === "call") return { permit: limit.permit };
  const cause = CAUSE_OF_LIMIT[limit.limit];
  const deferral = { cause, untilMs: limit.untilMs };
  const deferred = await defer(ctx, inHand, deferral, deadline()).catch(async (error: unknown) => {
    await giveBackProbe(ctx, key, admission);
    throw error;
  });
  if (deferred === undefined) return { permit: NO_PERMIT };
  await giveBackProbe(ctx, key, admission);
  return { deferred };
};

/**
 * Lets a call to the event's target through its breaker (asked first: an open one defers
 * without the limits' writes) and its limits, or defers the event.
 */
export const passTargetGate = async (
  ctx: OrchestratorContext,
  inHand: MessageInHand,
): Promise<GatePass | GateDeferral> => {
  const { breakers, limits, adaptive } = ctx.deps;
  const { key } = inHand.target;
  const admission = breakers === undefined ? CALL : await breakers.admit(key);
  // An open breaker is the learned limit's zero; half-open lets its probes through.
  const breakerState = admission.verdict === "defer" ? BreakerState.OPEN : BreakerState.CLOSED;
  adaptive?.observe(key, { kind: "breaker", state: breakerState });
  if (admission.verdict === "defer") {
    const deferred = await defer(ctx, inHand, {
      cause: DeferralCause.BREAKER_OPEN,
      untilMs: admission.untilMs,
      outageStartMs: admission.outageStartMs,
    });
    if (deferred !== undefined) return { deferred };
  }
  const limit =
    (limits === undefined && adaptive === undefined) || admission.verdict === "defer"
      ? { permit: NO_PERMIT }
      : await admitToLimits(ctx, inHand, admission);
  if ("deferred" in limit) return limit;
  const { permit } = limit;

  /**
   * Tells the breaker how the call ended, if the call says anything about the target; a probe
   * that made no call, or one that says nothing, is given back. A deferral past its deadline was
   * never admitted.
   */
  const settle = async (end: AttemptEnd | undefined): Promise<void> => {
    if (admission.verdict === "defer") return;
    const call = end?.kind === "finished" ? end.call : undefined;
    if (call !== undefined) adaptive?.observe(key, { kind: "call", call });
    if (breakers === undefined) return;
    const evidence = call === undefined ? CallEvidence.SILENT : breakers.evidenceOf(key, call);
    if (evidence === CallEvidence.SILENT || end?.kind !== "finished") {
      await giveBackProbe(ctx, key, admission);
      return;
    }
    const failed = evidence === CallEvidence.FAILING;
    await breakers.recordCall(key, failed, admission.verdict, end.outcome.message);
  };

  return {
    during: async (run) => {
      let done: ClaimTaken;
      try {
        done = await run();
      } catch (error) {
        // The message stays on the queue; its probe must not hold the breaker half-open meanwhile.
        await giveBackProbe(ctx, key, admission);
        throw error;
      } finally {
        await permit.release();
      }
      await settle(done.attempt);
      return done.verdict;
    },
  };
};

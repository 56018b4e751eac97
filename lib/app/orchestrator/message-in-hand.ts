import type { ReceivedMessage } from "../../core/ports.js";
import type { TargetKeyResolution } from "../../core/target-groups.js";
import type { AdmittedEvent } from "./message-admission.js";
import { callMsOf, type OrchestratorContext, scheduleOf } from "./orchestrator-context.js";

/*
 * Every step after admission (a hop, the gate, a deferral, the claim, the attempt) reads the
 * same facts of one message. They are worked out once, here, so that no step re-derives them
 * and no two steps can disagree on a message's target key or call length.
 */

/** An admitted message and what the orchestrator worked out about it, handed to every step. */
export interface MessageInHand extends AdmittedEvent {
  /** The message as received, its trace context the message span's. */
  readonly message: ReceivedMessage;
  /** The generation its schedule carries (a producer's message is always generation 0). */
  readonly generation: number;
  /** Its target's key under the declared groups, and what became of the envelope's group. */
  readonly target: TargetKeyResolution;
  /**
   * How long its call may take: the target's timeout, cut to the call budget the invocation
   * left when the message started. The gate's slot and the claim's lease are both timed by it.
   */
  readonly callMs: number;
}

/** The message in hand, from its admitted event and the call budget it started with. */
export const holdMessage = (
  ctx: OrchestratorContext,
  message: ReceivedMessage,
  event: AdmittedEvent,
  callBudgetMs: number,
): MessageInHand => ({
  ...event,
  message,
  generation: scheduleOf(message).generation,
  target: ctx.keyOf(event.envelope.target),
  callMs: callMsOf(event.envelope, callBudgetMs),
});

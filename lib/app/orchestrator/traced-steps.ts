import type { DeadLetterMessage } from "../../core/dead-letter.js";
import type { DeadLetterQueue, EventStore, IngressQueue } from "../../core/ports.js";
import type { TraceContext } from "../../core/trace-context.js";
import { type SpanAttributes, SpanName, type Tracer } from "../../core/tracing.js";
import { type MethodSpans, tracedPort } from "../traced-port.js";
import { RESEND_SPAN, resultWrite } from "../write-spans.js";
import type { OrchestratorContext } from "./orchestrator-context.js";

/*
 * The child spans of one message's writes and sends. The steps do not know of spans: the ports
 * they are handed for the message are wrapped, so that every claim, result write, re-send and
 * dead-letter send becomes a span under the message's own, whichever step makes it. Tracing off,
 * nothing is wrapped.
 */

const STORE_SPANS: MethodSpans<EventStore> = {
  claim: {
    name: SpanName.CLAIM,
    end: (value: { readonly kind: string }) => ({ "ricochet.claim": value.kind }),
  },
  recordResult: resultWrite("result"),
  recordPendingDeadLetter: resultWrite("pending_dead_letter"),
  recordDeferral: resultWrite("deferral"),
  recordScheduled: resultWrite("scheduled"),
  recordInvalid: resultWrite("invalid"),
  recordConflict: resultWrite("conflict"),
};

const INGRESS_SPANS: MethodSpans<IngressQueue> = { send: RESEND_SPAN };

const DEAD_LETTER_SPANS: MethodSpans<DeadLetterQueue> = {
  send: {
    name: SpanName.DEAD_LETTER_SEND,
    start: (message: DeadLetterMessage) => ({ "ricochet.dead_letter_reason": message.reason }),
  },
};

/**
 * The context one message's steps run in when tracing is on: its store, queue and dead-letter
 * ports traced under `parent` (the message's span), each span naming the event.
 */
export const tracedContext = (
  ctx: OrchestratorContext,
  tracer: Tracer,
  parent: TraceContext | undefined,
  eventId: string | undefined,
): OrchestratorContext => {
  const { deps } = ctx;
  const common: SpanAttributes = { "ricochet.event_id": eventId };
  const tracing = { tracer, parent, common };
  return {
    ...ctx,
    deps: {
      ...deps,
      store: tracedPort(deps.store, STORE_SPANS, tracing),
      ingress: tracedPort(deps.ingress, INGRESS_SPANS, tracing),
      deadLetters: tracedPort(deps.deadLetters, DEAD_LETTER_SPANS, tracing),
    },
  };
};

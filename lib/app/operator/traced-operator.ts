import type { EventStore, IngressQueue, MessageSchedule } from "../../core/ports.js";
import type { TraceContext } from "../../core/trace-context.js";
import type { SpanAttributes, Tracer } from "../../core/tracing.js";
import { type MethodSpans, tracedPort } from "../traced-port.js";
import { RESEND_SPAN, resultWrite } from "../write-spans.js";

/*
 * The operator function's writes and sends as spans. Its request span is a trace of its own (an
 * Invoke carries no trace context); each message it sends for an event is a span in that event's
 * trace instead, the child of the context the event carries, so that a redriven event's trace
 * runs on from its producer's through the redrive to its next attempt.
 */

const INGRESS_SPANS: MethodSpans<IngressQueue> = {
  send: {
    ...RESEND_SPAN,
    parent: (args) => (args[1] as MessageSchedule | undefined)?.trace,
  },
};

const STORE_SPANS: MethodSpans<EventStore> = {
  recordRedrive: resultWrite("redrive"),
  recordCancel: resultWrite("cancel"),
  recordReplay: resultWrite("replay"),
  appendAudit: resultWrite("audit"),
};

/** The ports of the operator's deps that are traced. */
interface OperatorPorts {
  readonly ingressQueue: IngressQueue;
  readonly store: EventStore;
}

/** `deps` with its store's writes under `parent` (the request's span) and its sends traced. */
export const tracedOperatorDeps = <D extends OperatorPorts>(
  deps: D,
  tracer: Tracer,
  parent: TraceContext | undefined,
  action: string,
): D => {
  const common: SpanAttributes = { "ricochet.operator.action": action };
  const tracing = { tracer, parent, common };
  return {
    ...deps,
    ingressQueue: tracedPort(deps.ingressQueue, INGRESS_SPANS, tracing),
    store: tracedPort(deps.store, STORE_SPANS, tracing),
  };
};

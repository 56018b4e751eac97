import type { DeadLetterMessage } from "../core/dead-letter.js";
import type { DeadLetterQueue, EventStore, IngressQueue, MessageSchedule } from "../core/ports.js";
import type { TraceContext } from "../core/trace-context.js";
import { inSpan, type SpanAttributes, SpanName, type Tracer } from "../core/tracing.js";
import type { OrchestratorContext } from "./orchestrator-context.js";

/*
 * The child spans of one message's writes and sends. The steps do not know of spans: the ports
 * they are handed for the message are wrapped, so that every claim, result write, re-send and
 * dead-letter send becomes a span under the message's own, whichever step makes it. Tracing off,
 * nothing is wrapped.
 */

/** How one port method is traced: its span's name, and what its arguments and value say. */
interface MethodSpan {
  readonly name: string;
  readonly start?: (...args: never[]) => SpanAttributes;
  readonly end?: (value: never) => SpanAttributes;
  /** The arguments with the span's own context in place of the message's, for what a send carries. */
  readonly carry?: (args: readonly unknown[], context: TraceContext | undefined) => unknown[];
}

type MethodSpans<P> = Partial<Record<keyof P, MethodSpan>>;

const kindOf = (value: { readonly kind: string } | undefined): SpanAttributes => ({
  "ricochet.write_outcome": value?.kind,
});

const resultWrite = (write: string): MethodSpan => ({
  name: SpanName.RESULT_WRITE,
  start: () => ({ "ricochet.write": write }),
  end: kindOf,
});

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

const INGRESS_SPANS: MethodSpans<IngressQueue> = {
  send: {
    name: SpanName.RESEND,
    start: (_body: string, schedule: MessageSchedule, delaySeconds: number) => ({
      "ricochet.generation": schedule.generation,
      "ricochet.delay_seconds": delaySeconds,
    }),
    // The next message's span is the send's child, as OpenTelemetry's messaging conventions
    // have a consumer follow its producer: the trace shows how long the message waited.
    carry: (args, context) => {
      const [body, schedule, delaySeconds] = args as Parameters<IngressQueue["send"]>;
      return [body, { ...schedule, trace: context }, delaySeconds];
    },
  },
};

const DEAD_LETTER_SPANS: MethodSpans<DeadLetterQueue> = {
  send: {
    name: SpanName.DEAD_LETTER_SEND,
    start: (message: DeadLetterMessage) => ({ "ricochet.dead_letter_reason": message.reason }),
  },
};

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

/**
 * `port` with the methods `spans` names run in spans, children of `parent`; every other member
 * is the port's own. A Proxy rather than a copy, so that ports written as classes keep their
 * private state.
 */
const traced = <P extends object>(
  port: P,
  spans: MethodSpans<P>,
  tracer: Tracer,
  parent: TraceContext | undefined,
  common: SpanAttributes,
): P =>
  new Proxy(port, {
    get: (target, property, _receiver) => {
      const member: unknown = Reflect.get(target, property, target);
      if (typeof member !== "function") return member;
      const method = (member as AnyMethod).bind(target);
      const span = spans[property as keyof P];
      if (span === undefined) return method;
      const startOf = span.start as ((...args: unknown[]) => SpanAttributes) | undefined;
      const endOf = span.end as ((value: unknown) => SpanAttributes) | undefined;
      const { carry } = span;
      return (...args: unknown[]) =>
        inSpan(
          tracer,
          span.name,
          parent,
          { ...common, ...startOf?.(...args) },
          (own) => method(...(carry === undefined ? args : carry(args, own.context))),
          endOf,
        );
    },
  });

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
  return {
    ...ctx,
    deps: {
      ...deps,
      store: traced(deps.store, STORE_SPANS, tracer, parent, common),
      ingress: traced(deps.ingress, INGRESS_SPANS, tracer, parent, common),
      deadLetters: traced(deps.deadLetters, DEAD_LETTER_SPANS, tracer, parent, common),
    },
  };
};

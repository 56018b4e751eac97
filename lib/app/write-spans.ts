import type { IngressQueue, MessageSchedule } from "../core/ports.js";
import { type SpanAttributes, SpanName } from "../core/tracing.js";
import type { MethodSpan } from "./traced-port.js";

/*
 * The spans of a store write and of a send to the internal queue, which the orchestrator's and the
 * operator function's traced ports share (orchestrator/traced-steps.ts,
 * operator/traced-operator.ts).
 */

const kindOf = (value: { readonly kind: string } | undefined): SpanAttributes => ({
  "ricochet.write_outcome": value?.kind,
});

/** A write of what a message (or an operator's action) came to, named by `write`. */
export const resultWrite = (write: string): MethodSpan => ({
  name: SpanName.RESULT_WRITE,
  start: () => ({ "ricochet.write": write }),
  end: kindOf,
});

/**
 * A send to the internal queue: the next message's span is the send's child, as OpenTelemetry's
 * messaging conventions have a consumer follow its producer, so the trace shows how long the
 * message waited.
 */
export const RESEND_SPAN: MethodSpan = {
  name: SpanName.RESEND,
  start: (_body: string, schedule: MessageSchedule, delaySeconds: number) => ({
    "ricochet.generation": schedule.generation,
    "ricochet.delay_seconds": delaySeconds,
  }),
  carry: (args, context) => {
    const [body, schedule, delaySeconds] = args as Parameters<IngressQueue["send"]>;
    return [body, { ...schedule, trace: context }, delaySeconds];
  },
};

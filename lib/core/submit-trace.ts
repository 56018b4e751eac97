import { InvalidRequestError } from "./errors.js";
import {
  parseTraceparent,
  parseTracestate,
  TRACE_ATTRIBUTE,
  type TraceContext,
} from "./trace-context.js";

/*
 * A producer's own trace context for a submission (the client's `trace` option, `ricochet submit
 * --traceparent`). The orchestrator ignores a malformed context on a message, since anyone may
 * have sent it; the producer client is the producer's own code, so a context it cannot send is
 * refused there with the reason, instead of vanishing without a word.
 */

/**
 * W3C Trace Context as OpenTelemetry's propagator writes it into a carrier:
 * `propagation.inject(context.active(), carrier)` fills exactly these two fields, and leaves the
 * carrier empty when no span is active (which is no trace, not an error).
 */
export interface SubmitTrace {
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
}

// Enough of a refused value to recognise it, never a whole hostile string.
const SHOWN_CHARACTERS = 64;

const shown = (value: unknown): string =>
  typeof value === "string" && value.length > SHOWN_CHARACTERS
    ? `${JSON.stringify(value.slice(0, SHOWN_CHARACTERS))}… (${value.length} characters)`
    : (JSON.stringify(value) ?? String(value));

/**
 * The trace context a submission asks to carry, validated; `undefined` when it asks for none.
 * @throws InvalidRequestError when it is not an object, its `traceparent` is not a valid W3C
 * `traceparent`, its `tracestate` is not a valid W3C `tracestate`, or it has a `tracestate`
 * without a `traceparent`.
 */
export const traceOfSubmission = (trace: unknown): TraceContext | undefined => {
  const refuse = (path: string, message: string): never => {
    throw new InvalidRequestError("trace", [{ path, message }]);
  };
  if (trace === undefined) return undefined;
  if (typeof trace !== "object" || trace === null || Array.isArray(trace)) {
    return refuse("", `must be an object with traceparent and tracestate, got ${shown(trace)}`);
  }
  const { traceparent, tracestate } = trace as Record<string, unknown>;
  if (traceparent === undefined) {
    return tracestate === undefined
      ? undefined
      : refuse(TRACE_ATTRIBUTE.TRACESTATE, "cannot be given without a traceparent");
  }
  const parent = parseTraceparent(traceparent);
  if (parent === undefined) {
    return refuse(
      TRACE_ATTRIBUTE.TRACEPARENT,
      `must be a W3C traceparent (00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, ids not all zeros), got ${shown(traceparent)}`,
    );
  }
  if (tracestate === undefined || tracestate === "") return parent;
  const traceState = parseTracestate(tracestate);
  return traceState === undefined
    ? refuse(
        TRACE_ATTRIBUTE.TRACESTATE,
        `must be a W3C tracestate (at most 32 key=value members, 512 characters), got ${shown(tracestate)}`,
      )
    : { ...parent, traceState };
};

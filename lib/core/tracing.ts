import type { Target } from "./envelope.js";
import { secretFreeUrl } from "./redact.js";
import type { TraceContext } from "./trace-context.js";

/*
 * The orchestrator's spans, as a port: the app names its steps and their attributes, an adapter
 * (lib/adapters/otel-tracer.ts) makes OpenTelemetry spans of them. The default does nothing and
 * allocates nothing, so that tracing off costs a function call per step.
 */

/** Span attribute values: never a secret, a header value or a payload. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A started span. */
export interface SpanHandle {
  /**
   * The context a child (a re-sent message, a target's call) names as its parent; undefined when
   * the span is not recorded and there is no producer context to hand on.
   */
  readonly context: TraceContext | undefined;
  /** Ends the span with more attributes; `failed` marks it as an error. */
  end(attributes?: SpanAttributes, failed?: boolean): void;
}

export interface Tracer {
  /** Starts a span, a child of `parent` when there is one (else a new trace's root). */
  start(name: string, parent: TraceContext | undefined, attributes?: SpanAttributes): SpanHandle;
}

/** Tracing off: spans are not recorded, and the producer's context travels on unchanged. */
export const NO_TRACING: Tracer = {
  start: (_name, parent) => ({ context: parent, end: () => undefined }),
};

/** Span names, stable so that dashboards and tests can find them. */
export const SpanName = {
  MESSAGE: "ricochet.message",
  /** Validation, the forged-attribute check and the policy clamp of one message. */
  ADMISSION: "ricochet.admission",
  /** The target's breaker and limits, before the claim (may defer the event). */
  GATE: "ricochet.gate",
  /** The conditional write that takes the event's lease. */
  CLAIM: "ricochet.claim",
  TARGET_CALL: "ricochet.target_call",
  /** The message that carries a retry, hop or deferral to the internal queue. */
  RESEND: "ricochet.resend",
  /** The dead-letter copy's send. */
  DEAD_LETTER_SEND: "ricochet.dead_letter_send",
  /** A write of what the message came to: a result, a pending dead letter, a deferral, a schedule. */
  RESULT_WRITE: "ricochet.result_write",
  /** One invocation of the operator function: a redrive, cancel, replay or stuck sweep. */
  OPERATOR_REQUEST: "ricochet.operator_request",
} as const;

/**
 * Runs `step` in a span named `name`, a child of `parent`, ended with what `describe` says of its
 * value, or marked failed with the error's name when it throws (the error itself is rethrown).
 * The step is handed the span, whose context it may pass on (a message it sends).
 */
export const inSpan = async <T>(
  tracer: Tracer,
  name: string,
  parent: TraceContext | undefined,
  attributes: SpanAttributes,
  step: (span: SpanHandle) => Promise<T>,
  describe?: (value: T) => SpanAttributes,
): Promise<T> => {
  const span = tracer.start(name, parent, attributes);
  try {
    const value = await step(span);
    span.end(describe?.(value), false);
    return value;
  } catch (error) {
    span.end({ "error.type": error instanceof Error ? error.name : "unknown" }, true);
    throw error;
  }
};

/**
 * A target call's attributes, after OpenTelemetry's HTTP client conventions: the method and the
 * URL without userinfo, query or fragment (where credentials hide), never a header or the body.
 */
export const targetCallAttributes = (target: Target): SpanAttributes =>
  target.type === "http"
    ? { "http.request.method": target.method ?? "POST", "url.full": secretFreeUrl(target.url) }
    : {
        "rpc.system": "aws-api",
        "rpc.service": "Lambda",
        "faas.invoked_name": target.functionName,
      };

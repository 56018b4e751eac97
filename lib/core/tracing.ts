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
  TARGET_CALL: "ricochet.target_call",
} as const;

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

import {
  context as otelContext,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import type { TraceContext } from "../core/trace-context.js";
import type { SpanAttributes, SpanHandle, Tracer } from "../core/tracing.js";
import { SpanName } from "../core/tracing.js";

/*
 * The OpenTelemetry JS SDK behind the app's Tracer port: loaded only when tracing is on
 * (lib/runtime/tracing.ts imports this module lazily), so that a deployment with tracing off never
 * parses it. Spans are batched and flushed after every Lambda batch, before the sandbox freezes.
 */

/** A tracer whose spans can be flushed (at the end of a Lambda batch). */
export interface FlushingTracer extends Tracer {
  flush(): Promise<void>;
}

/** Where spans go: an OTLP/HTTP endpoint (`url`, else the OTEL_EXPORTER_OTLP_* variables) or stdout. */
export type SpanSink =
  | { readonly kind: "otlp"; readonly url?: string }
  | { readonly kind: "console" };

const KIND: Readonly<Record<string, SpanKind>> = {
  [SpanName.MESSAGE]: SpanKind.CONSUMER,
  [SpanName.TARGET_CALL]: SpanKind.CLIENT,
  // A write is a request to DynamoDB, a send a message others consume.
  [SpanName.CLAIM]: SpanKind.CLIENT,
  [SpanName.RESULT_WRITE]: SpanKind.CLIENT,
  [SpanName.RESEND]: SpanKind.PRODUCER,
  [SpanName.DEAD_LETTER_SEND]: SpanKind.PRODUCER,
};

const parentContextOf = (parent: TraceContext | undefined) =>
  parent === undefined
    ? otelContext.active()
    : trace.setSpanContext(otelContext.active(), {
        traceId: parent.traceId,
        spanId: parent.parentId,
        traceFlags: parent.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
        isRemote: true,
      });

const defined = (
  attributes: SpanAttributes | undefined,
): Record<string, string | number | boolean> =>
  Object.fromEntries(
    Object.entries(attributes ?? {}).filter(([, value]) => value !== undefined),
  ) as Record<string, string | number | boolean>;

const handleOf = (span: Span, parent: TraceContext | undefined): SpanHandle => {
  const own = span.spanContext();
  return {
    context: {
      traceId: own.traceId,
      parentId: own.spanId,
      sampled: (own.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED,
      traceState: parent?.traceState,
    },
    end: (attributes, failed) => {
      span.setAttributes(defined(attributes));
      if (failed === true) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
};

/** An OpenTelemetry tracer exporting to `sink`, named for the service it runs in. */
export const createOtelTracer = (sink: SpanSink, serviceName = "ricochet"): FlushingTracer => {
  const exporter: SpanExporter =
    sink.kind === "console"
      ? new ConsoleSpanExporter()
      : new OTLPTraceExporter(sink.url === undefined ? {} : { url: sink.url });
  const provider = new BasicTracerProvider({
    spanProcessors: [
      sink.kind === "console"
        ? new SimpleSpanProcessor(exporter)
        : new BatchSpanProcessor(exporter),
    ],
  });
  const tracer = provider.getTracer(serviceName);
  return {
    start: (name, parent, attributes) =>
      handleOf(
        tracer.startSpan(
          name,
          { kind: KIND[name] ?? SpanKind.INTERNAL, attributes: defined(attributes) },
          parentContextOf(parent),
        ),
        parent,
      ),
    flush: () => provider.forceFlush(),
  };
};

import type { TraceContext } from "../core/trace-context.js";
import { inSpan, type SpanAttributes, type Tracer } from "../core/tracing.js";

/*
 * A port whose chosen methods run in spans: how the orchestrator's and the operator function's
 * steps are traced without knowing of tracing (lib/app/orchestrator/traced-steps.ts,
 * lib/app/operator/traced-operator.ts).
 */

/** How one port method is traced: its span's name, and what its arguments and value say. */
export interface MethodSpan {
  readonly name: string;
  readonly start?: (...args: never[]) => SpanAttributes;
  readonly end?: (value: never) => SpanAttributes;
  /** The arguments with the span's own context in place of the message's, for what a send carries. */
  readonly carry?: (args: readonly unknown[], context: TraceContext | undefined) => unknown[];
  /** The span's parent read from the arguments (the event's own trace), in place of the port's. */
  readonly parent?: (args: readonly unknown[]) => TraceContext | undefined;
}

export type MethodSpans<P> = Partial<Record<keyof P, MethodSpan>>;

/** Where a port's spans go: the tracer, their parent, and the attributes each of them carries. */
interface PortTracing {
  readonly tracer: Tracer;
  readonly parent: TraceContext | undefined;
  readonly common: SpanAttributes;
}

type AnyMethod = (...args: unknown[]) => Promise<unknown>;
/**
 * `port` with the methods `spans` names run in spans, children of the tracing's `parent` (or of
 * the context a method's own `parent` reads from its arguments), each carrying the tracing's
 * `common` attributes; every other member is the port's own. A Proxy
 * rather than a copy, so that ports written as classes keep their private state. Each method is
 * bound (and wrapped) once, on its first read, not on every call.
 */
export const tracedPort = <P extends object>(
  port: P,
  spans: MethodSpans<P>,
  { tracer, parent, common }: PortTracing,
): P => {
  const methods = new Map<PropertyKey, AnyMethod>();
  const traced = (member: AnyMethod, span: MethodSpan | undefined): AnyMethod => {
    if (span === undefined) return member;
    const startOf = span.start as ((...args: unknown[]) => SpanAttributes) | undefined;
    const endOf = span.end as ((value: unknown) => SpanAttributes) | undefined;
    const { carry } = span;
    return (...args: unknown[]) =>
      inSpan(
        tracer,
        span.name,
        span.parent === undefined ? parent : span.parent(args),
        { ...common, ...startOf?.(...args) },
        (own) => member(...(carry === undefined ? args : carry(args, own.context))),
        endOf,
      );
  };
  return new Proxy(port, {
    get: (target, property, _receiver) => {
      const member: unknown = Reflect.get(target, property, target);
      if (typeof member !== "function") return member;
      let method = methods.get(property);
      if (method === undefined) {
        method = traced((member as AnyMethod).bind(target), spans[property as keyof P]);
        methods.set(property, method);
      }
      return method;
    },
  });
};

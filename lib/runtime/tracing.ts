import type { FlushingTracer } from "../adapters/otel-tracer.js";
import type { TracingMode } from "../contract/defaults.js";

/**
 * The tracer a mode asks for, or none when tracing is off. The OpenTelemetry SDK is imported
 * here, on demand, so that a deployment with tracing off never loads it (docs/design-notes.md,
 * "Traces"). `on` exports over OTLP/HTTP to the `OTEL_EXPORTER_OTLP_ENDPOINT` the SDK reads
 * (an ADOT collector layer or any collector); `console` prints spans, for local runs.
 */
export const loadTracer = async (
  mode: TracingMode | undefined,
): Promise<FlushingTracer | undefined> => {
  if (mode === undefined || mode === "off") return undefined;
  const { createOtelTracer } = await import("../adapters/otel-tracer.js");
  return createOtelTracer(mode === "console" ? { kind: "console" } : { kind: "otlp" });
};

/*
 * The modes of RICOCHET_TRACING. The construct's `tracing` prop is a switch (lib/contract/
 * settings.ts); the variable has a third mode, `console`, for local runs.
 */

/** Where spans go: nowhere by default, so that the OpenTelemetry SDK is never loaded. */
export const TRACING_MODES = ["off", "on", "console"] as const;
export type TracingMode = (typeof TRACING_MODES)[number];
export const DEFAULT_TRACING_MODE: TracingMode = "off";

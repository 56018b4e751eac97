/*
 * Defaults the construct writes into the functions' environment and the functions fall back to
 * when a variable is unset (a hand-made deployment or a local run). Both read them from here so
 * the two can never disagree.
 */

/** How long records are kept when RICOCHET_RECORD_RETENTION_DAYS is unset. */
export const DEFAULT_RECORD_RETENTION_DAYS = 30;

/** How many messages of one batch are attempted at once when RICOCHET_MESSAGE_CONCURRENCY is unset. */
export const DEFAULT_MESSAGE_CONCURRENCY = 10;

/** The longest RICOCHET_RECORD_RETENTION_DAYS may say: ten years. */
export const MAX_RECORD_RETENTION_DAYS = 3650;

/** Where spans go: nowhere by default, so that the OpenTelemetry SDK is never loaded. */
export const TRACING_MODES = ["off", "on", "console"] as const;
export type TracingMode = (typeof TRACING_MODES)[number];
export const DEFAULT_TRACING_MODE: TracingMode = "off";

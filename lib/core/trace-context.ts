import { createHash } from "node:crypto";

/*
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) as a producer hands it to Ricochet and
 * Ricochet hands it on: read from a message's `traceparent`/`tracestate` attributes (the names
 * OpenTelemetry's SQS instrumentation uses) or X-Ray's `AWSTraceHeader` system attribute, carried
 * on every message Ricochet re-sends, and sent to the target. A producer's value is untrusted
 * input: anything malformed or oversized is ignored, as if the producer had sent none, so that a
 * bad header can neither crash an attempt nor travel on. Pure: no I/O.
 */

/** A producer's trace context, validated and normalised to lower case. */
export interface TraceContext {
  /** 32 lowercase hex digits, never all zeros. */
  readonly traceId: string;
  /** The producer's span (16 lowercase hex digits, never all zeros): the parent of ours. */
  readonly parentId: string;
  /** Whether the producer sampled its trace (the `sampled` flag). */
  readonly sampled: boolean;
  /** The vendor entries, kept only when the whole header is well-formed. */
  readonly traceState?: string | undefined;
}

/**
 * The carriers a trace context arrives in; every one may be absent or hostile (not even a string,
 * read back from a dead-letter copy anyone with send rights on that queue could have written).
 */
export interface TraceCarriers {
  readonly traceparent?: unknown;
  readonly tracestate?: unknown;
  /** X-Ray's `AWSTraceHeader` (`Root=1-…-…;Parent=…;Sampled=1`), used when `traceparent` is not. */
  readonly awsTraceHeader?: unknown;
}

/** The message attribute names, as OpenTelemetry's SQS instrumentation spells them. */
export const TRACE_ATTRIBUTE = {
  TRACEPARENT: "traceparent",
  TRACESTATE: "tracestate",
} as const;

// A header longer than this is no trace context, whatever it holds: reading stops there.
const MAX_TRACEPARENT_LENGTH = 256;
// The W3C limit for `tracestate` (32 members of at most 256 characters would be far more).
const MAX_TRACESTATE_LENGTH = 512;
const MAX_TRACESTATE_MEMBERS = 32;
const MAX_XRAY_HEADER_LENGTH = 256;

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const TRACESTATE_MEMBER =
  /^(?:[a-z0-9][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
const XRAY_ROOT = /^1-([0-9a-f]{8})-([0-9a-f]{24})$/;
const HEX16 = /^[0-9a-f]{16}$/;

const allZeros = (hex: string): boolean => /^0+$/.test(hex);

/** The producer's `traceparent`, or undefined when it is not a valid one (W3C §3.2). */
export const parseTraceparent = (value: unknown): Omit<TraceContext, "traceState"> | undefined => {
  if (typeof value !== "string" || value.length > MAX_TRACEPARENT_LENGTH) return undefined;
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (match === null) return undefined;
  const [, version, traceId, parentId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  // Version ff is forbidden; version 00 has nothing after the flags. A later version may add
  // fields, which this reader ignores as the spec asks.
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (allZeros(traceId) || allZeros(parentId)) return undefined;
  return { traceId, parentId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
};

/** The producer's `tracestate` when every member is well-formed and within the limits; else none. */
export const parseTracestate = (value: unknown): string | undefined => {
  if (typeof value !== "string" || value.length > MAX_TRACESTATE_LENGTH) return undefined;
  const members = value
    .split(",")
    .map((member) => member.trim())
    .filter((member) => member !== "");
  if (members.length === 0 || members.length > MAX_TRACESTATE_MEMBERS) return undefined;
  return members.every((member) => TRACESTATE_MEMBER.test(member)) ? members.join(",") : undefined;
};

/** X-Ray's header as a W3C context: its `Root` is the trace id with the version and dash removed. */
const parseXRayTraceHeader = (value: unknown): TraceContext | undefined => {
  if (typeof value !== "string" || value.length > MAX_XRAY_HEADER_LENGTH) return undefined;
  const fields = new Map<string, string>();
  for (const part of value.split(";")) {
    const at = part.indexOf("=");
    if (at > 0)
      fields.set(
        part.slice(0, at).trim(),
        part
          .slice(at + 1)
          .trim()
          .toLowerCase(),
      );
  }
  const root = XRAY_ROOT.exec(fields.get("Root") ?? "");
  const parentId = fields.get("Parent") ?? "";
  if (root === null || !HEX16.test(parentId) || allZeros(parentId)) return undefined;
  const traceId = `${root[1]}${root[2]}`;
  if (allZeros(traceId)) return undefined;
  return { traceId, parentId, sampled: fields.get("Sampled") === "1" };
};

/**
 * The producer's trace context from whichever carrier holds a valid one: `traceparent` first
 * (with its `tracestate`), then X-Ray's header; undefined when none does.
 */
export const traceContextFrom = (carriers: TraceCarriers): TraceContext | undefined => {
  const parent = parseTraceparent(carriers.traceparent);
  if (parent !== undefined) {
    const traceState = parseTracestate(carriers.tracestate);
    return traceState === undefined ? parent : { ...parent, traceState };
  }
  return parseXRayTraceHeader(carriers.awsTraceHeader);
};

/** The `traceparent` (version 00) naming `context.parentId` as the caller's span. */
export const formatTraceparent = (context: TraceContext): string =>
  `00-${context.traceId}-${context.parentId}-${context.sampled ? "01" : "00"}`;

/**
 * The carriers to hand on for a context: a target's headers, a re-sent message's attributes, a
 * dead-letter copy's summary fields; none without a context.
 */
export const traceHeaders = (
  context: TraceContext | undefined,
): { readonly traceparent?: string; readonly tracestate?: string } =>
  context === undefined
    ? {}
    : {
        [TRACE_ATTRIBUTE.TRACEPARENT]: formatTraceparent(context),
        ...(context.traceState === undefined
          ? {}
          : { [TRACE_ATTRIBUTE.TRACESTATE]: context.traceState }),
      };

/**
 * The trace a replay's message carries: the one the event's attempts belonged to, so that the
 * replayed call joins the producer's trace as its retries did. The record keeps only the trace
 * id (docs/design-notes.md, "Traces": a record must not grow), so the producer's span, flag and
 * tracestate are gone: the replay names a span of its own as the parent, its id derived from the
 * event and generation (the same on every run of this replay, as a redrive's copy is), and marks
 * it sampled, so that the call an operator asked for is recorded. The id is read back from the
 * table: it is validated like a producer's, and an invalid one (or none) gives no trace at all.
 */
export const replayTraceContext = (
  traceId: string | undefined,
  eventId: string,
  generation: number,
): TraceContext | undefined => {
  if (traceId === undefined) return undefined;
  const spanId = createHash("sha256")
    .update(`replay\n${eventId}\n${generation}`)
    .digest("hex")
    .slice(0, 16);
  return traceContextFrom({ traceparent: `00-${traceId}-${spanId}-01` });
};

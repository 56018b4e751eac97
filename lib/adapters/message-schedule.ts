import type { MessageAttributeValue } from "@aws-sdk/client-sqs";
import type { SQSMessageAttributes } from "aws-lambda";
import type { MessageSchedule } from "../core/ports.js";
import {
  TRACE_ATTRIBUTE,
  type TraceContext,
  traceContextFrom,
  traceHeaders,
} from "../core/trace-context.js";

/**
 * Scheduling facts travel as SQS message attributes so the body stays exactly the producer's
 * envelope. These names are part of the wire format: changing them strands messages in flight.
 * They are believed only on the internal queue, which producers cannot send to.
 */
export const SCHEDULE_ATTRIBUTE = {
  GENERATION: "ricochet.generation",
  NOT_BEFORE: "ricochet.notBefore",
} as const;

/** Message attributes for `SendMessage`, as the SQS API takes them. */
export const scheduleToAttributes = (
  schedule: MessageSchedule,
): Record<string, MessageAttributeValue> => {
  const attributes: Record<string, MessageAttributeValue> = {
    [SCHEDULE_ATTRIBUTE.GENERATION]: {
      DataType: "Number",
      StringValue: String(schedule.generation),
    },
  };
  if (schedule.notBeforeMs !== undefined) {
    attributes[SCHEDULE_ATTRIBUTE.NOT_BEFORE] = {
      DataType: "Number",
      StringValue: String(Math.trunc(schedule.notBeforeMs)),
    };
  }
  return { ...attributes, ...traceToAttributes(schedule.trace) };
};

/** A trace context as the `traceparent`/`tracestate` message attributes; none without one. */
export const traceToAttributes = (
  context: TraceContext | undefined,
): Record<string, MessageAttributeValue> =>
  Object.fromEntries(
    Object.entries(traceHeaders(context)).map(([name, value]) => [
      name,
      { DataType: "String", StringValue: value },
    ]),
  );

const wholeNumber = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) && parsed >= 0 ? parsed : undefined;
};

type AnyAttributes = Record<string, MessageAttributeValue> | SQSMessageAttributes | undefined;

/** An attribute's text in either shape: the SQS API's (`StringValue`) or Lambda's (`stringValue`). */
const attributeText = (attributes: AnyAttributes, name: string): string | undefined => {
  const attribute = attributes?.[name] as
    | { StringValue?: string; stringValue?: string }
    | undefined;
  return attribute?.StringValue ?? attribute?.stringValue;
};

/**
 * The trace context a message carries: its `traceparent`/`tracestate` attributes, else X-Ray's
 * `AWSTraceHeader` system attribute. Read on both queues: it is the producer's to set, and a
 * malformed one is ignored (lib/core/trace-context.ts).
 */
export const traceFromAttributes = (
  attributes: AnyAttributes,
  awsTraceHeader: string | undefined,
): TraceContext | undefined =>
  traceContextFrom({
    traceparent: attributeText(attributes, TRACE_ATTRIBUTE.TRACEPARENT),
    tracestate: attributeText(attributes, TRACE_ATTRIBUTE.TRACESTATE),
    awsTraceHeader,
  });

/**
 * Reads the schedule from either shape attributes come in: the SQS API's (`StringValue`) or the
 * Lambda event's (`stringValue`). A producer's original message has none: generation 0.
 * Unreadable values are treated as absent rather than trusted.
 */
export const scheduleFromAttributes = (attributes: AnyAttributes): MessageSchedule => {
  const read = (name: string): string | undefined => attributeText(attributes, name);
  return {
    generation: wholeNumber(read(SCHEDULE_ATTRIBUTE.GENERATION)) ?? 0,
    notBeforeMs: wholeNumber(read(SCHEDULE_ATTRIBUTE.NOT_BEFORE)),
  };
};

/** Prefix of every attribute name Ricochet reserves for its own messages. */
const RESERVED_ATTRIBUTE_PREFIX = "ricochet.";

/** Names of the reserved attributes a message carries, in order, whatever their case. */
export const reservedAttributeNames = (attributes: Record<string, unknown> | undefined): string[] =>
  Object.keys(attributes ?? {})
    .filter((name) => name.toLowerCase().startsWith(RESERVED_ATTRIBUTE_PREFIX))
    .sort();

import * as z from "zod";
import { EventIdSchema } from "./core/envelope.js";
import { InvalidRequestError } from "./core/errors.js";
import { toProblems } from "./core/zod-problems.js";

/*
 * The requests of the per-event operator actions, cancel and replay, as the CLI, the client and
 * the operator (redrive) function take them. `action` tells them apart from a redrive request in
 * the function's event. The caller's AWS identity is never part of a request: the layer that
 * can vouch for it (STS in the CLI, the invocation in the function) passes it beside.
 */

/** The most events one cancel or replay names, so a run (and a Lambda invocation) stays bounded. */
export const MAX_OPERATOR_EVENTS = 1_000;
/** The reason recorded when the operator gives none. */
export const NO_REASON_GIVEN = "no reason given";

const identity = {
  by: z.string().trim().min(1, "must name who asks").max(200),
  reason: z.string().trim().min(1).max(1000).default(NO_REASON_GIVEN),
  dryRun: z.boolean().default(false),
};
const eventIds = z.array(EventIdSchema).min(1).max(MAX_OPERATOR_EVENTS);

export const CancelRequestSchema = z.strictObject({
  action: z.literal("cancel"),
  eventIds,
  ...identity,
});

export const ReplayRequestSchema = z.strictObject({
  action: z.literal("replay"),
  eventIds,
  /**
   * The events' envelopes, as bodies (strings, sent as they are) or JSON objects. The record
   * keeps only the accepted envelope's digest, which each one must match.
   */
  envelopes: z
    .array(z.union([z.string(), z.record(z.string(), z.unknown())]))
    .min(1)
    .max(MAX_OPERATOR_EVENTS),
  extraAttempts: z
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe("Grant this many attempts; a fresh budget (the policy's maxAttempts) otherwise."),
  ...identity,
});

/** What a caller may ask of a cancel (before defaults). */
export type CancelRequestInput = z.input<typeof CancelRequestSchema>;
export type CancelRequest = z.output<typeof CancelRequestSchema>;
/** What a caller may ask of a replay (before defaults). */
export type ReplayRequestInput = z.input<typeof ReplayRequestSchema>;
export type ReplayRequest = z.output<typeof ReplayRequestSchema>;

const parseWith =
  <S extends z.ZodType>(schema: S, what: string) =>
  (value: unknown): z.output<S> => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new InvalidRequestError(what, toProblems(parsed.error));
    return parsed.data;
  };

/**
 * Validates a cancel request.
 * @throws InvalidRequestError listing every problem.
 */
export const parseCancelRequest: (value: unknown) => CancelRequest = parseWith(
  CancelRequestSchema,
  "cancel request",
);

/**
 * Validates a replay request.
 * @throws InvalidRequestError listing every problem.
 */
export const parseReplayRequest: (value: unknown) => ReplayRequest = parseWith(
  ReplayRequestSchema,
  "replay request",
);

/** Whether a function event asks for a cancel or a replay rather than a redrive. */
export const operatorActionOf = (value: unknown): "cancel" | "replay" | undefined => {
  const action =
    typeof value === "object" && value !== null
      ? (value as { action?: unknown }).action
      : undefined;
  return action === "cancel" || action === "replay" ? action : undefined;
};

import * as z from "zod";
import { EventIdSchema } from "../../core/envelope.js";
import { InvalidRequestError } from "../../core/errors.js";
import { toProblems } from "../../core/zod-problems.js";
import { parseRedriveRequest, type RedriveRequest } from "./redrive-request.js";

/*
 * The requests of the per-event operator actions, cancel and replay, as the CLI, the client and
 * the operator function take them. `action` tells them apart from a redrive request in
 * the function's event. The caller's AWS identity is never part of a request: the layer that
 * can vouch for it (STS in the CLI, the invocation in the function) passes it beside.
 */

/** The most events one cancel or replay names, so a run (and a Lambda invocation) stays bounded. */
const MAX_OPERATOR_EVENTS = 1_000;
/** The reason recorded when the operator gives none. */
const NO_REASON_GIVEN = "no reason given";

const identity = {
  by: z.string().trim().min(1, "must name who asks").max(200),
  reason: z.string().trim().min(1).max(1000).default(NO_REASON_GIVEN),
  dryRun: z.boolean().default(false),
};
const eventIds = z.array(EventIdSchema).min(1).max(MAX_OPERATOR_EVENTS);

const CancelRequestSchema = z.strictObject({
  action: z.literal("cancel"),
  eventIds,
  ...identity,
});

const ReplayRequestSchema = z.strictObject({
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

/** The actions the operator function runs; a request that names none is a redrive. */
const OPERATOR_ACTIONS = ["redrive", "cancel", "replay", "sweep-stuck"] as const;

/** A validated request to the operator function, by action. */
export type OperatorRequest =
  | { readonly action: "redrive"; readonly request: RedriveRequest }
  | { readonly action: "cancel"; readonly request: CancelRequest }
  | { readonly action: "replay"; readonly request: ReplayRequest }
  /** The construct's schedule asks for a stuck-event sweep; it takes no arguments. */
  | { readonly action: "sweep-stuck" };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Validates a request to the operator function: `action` says which use case runs ("redrive"
 * when absent, so the redrive requests that predate the other actions keep working), and the
 * rest is that action's request.
 * @throws InvalidRequestError listing every problem (an unknown action is one).
 */
export const parseOperatorRequest = (value: unknown): OperatorRequest => {
  if (!isObject(value))
    throw new InvalidRequestError("operator request", [
      { path: "", message: "must be a JSON object" },
    ]);
  const { action = "redrive", ...rest } = value;
  switch (action) {
    case "redrive":
      return { action, request: parseRedriveRequest(rest) };
    case "cancel":
      return { action, request: parseCancelRequest(value) };
    case "replay":
      return { action, request: parseReplayRequest(value) };
    case "sweep-stuck":
      return { action };
    default:
      throw new InvalidRequestError("operator request", [
        { path: "action", message: `must be one of ${OPERATOR_ACTIONS.join(", ")}` },
      ]);
  }
};

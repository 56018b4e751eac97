import * as z from "zod";
import { DeadLetterReason } from "../../core/decide.js";
import { EventIdSchema } from "../../core/envelope.js";
import { InvalidRequestError } from "../../core/errors.js";
import { toProblems } from "../../core/zod-problems.js";

/** Moves per second when the request does not say. Keeps a big redrive from flooding a target. */
const DEFAULT_REDRIVE_RATE = 10;
/** Extra attempts granted when neither `resetAttempts` nor `extraAttempts` is given. */
export const DEFAULT_EXTRA_ATTEMPTS = 1;
/** The most messages one redrive selects, so a run (and a Lambda invocation) stays bounded. */
export const MAX_REDRIVE_LIMIT = 10_000;

const instant = z.iso.datetime({
  offset: true,
  error: "must be an ISO 8601 date-time with a time zone",
});

const RedriveRequestSchema = z
  .strictObject({
    eventIds: z.array(EventIdSchema).min(1).max(MAX_REDRIVE_LIMIT).optional(),
    reasons: z
      .array(z.enum(Object.values(DeadLetterReason) as [DeadLetterReason, ...DeadLetterReason[]]))
      .min(1)
      .optional(),
    since: instant.optional().describe("Only messages dead-lettered at or after this instant."),
    until: instant.optional().describe("Only messages dead-lettered before this instant."),
    target: z
      .string()
      .min(1)
      .max(1_100)
      .optional()
      .describe(
        "Only events to this target key (`http:https://host:443`, `lambda:name`, `group:name`).",
      ),
    limit: z.int().min(1).max(MAX_REDRIVE_LIMIT).optional(),
    dryRun: z.boolean().default(false),
    ratePerSecond: z.number().positive().max(1000).default(DEFAULT_REDRIVE_RATE),
    resetAttempts: z
      .boolean()
      .optional()
      .describe("Grant a fresh budget: the attempts made so far plus the policy's maxAttempts."),
    extraAttempts: z
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe(`Grant this many more attempts; ${DEFAULT_EXTRA_ATTEMPTS} when nothing is said.`),
    includeUnverified: z
      .boolean()
      .default(false)
      .describe(
        "Also move copies the event's record does not bear out (no record, or a summary it contradicts).",
      ),
    by: z.string().trim().min(1, "must name who asks for the redrive").max(200),
    why: z.string().max(1000).optional(),
  })
  .superRefine((request, ctx) => {
    if (request.resetAttempts === true && request.extraAttempts !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["extraAttempts"],
        message: "give either resetAttempts or extraAttempts, not both",
      });
    }
    if (
      request.since !== undefined &&
      request.until !== undefined &&
      Date.parse(request.since) > Date.parse(request.until)
    ) {
      ctx.addIssue({ code: "custom", path: ["until"], message: "must not be before since" });
    }
  });

/** What a caller may ask of a redrive (before defaults). */
export type RedriveRequestInput = z.input<typeof RedriveRequestSchema>;
/** An operator's redrive request, validated, defaults applied (the store's write is `RedriveRecordRequest`). */
export type RedriveRequest = z.output<typeof RedriveRequestSchema>;

/**
 * Validates a redrive request (from the CLI, or the Lambda's event).
 * @throws InvalidRequestError listing every problem.
 */
export const parseRedriveRequest = (value: unknown): RedriveRequest => {
  const parsed = RedriveRequestSchema.safeParse(value);
  if (!parsed.success) throw new InvalidRequestError("redrive request", toProblems(parsed.error));
  return parsed.data;
};

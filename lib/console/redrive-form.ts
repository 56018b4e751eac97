import type { RedriveRequestInput } from "../app/operator/redrive-request.js";
import type { DeadLetterReason } from "../core/decide.js";

/*
 * The dead-letter page's redrive form, read into the request `ricochet redrive` sends to the same
 * library call. The form is posted twice: once to see the dry run, once (with `confirm`) to move.
 */

/** The form's fields, as posted. */
export interface RedriveForm {
  readonly reason?: string | undefined;
  /** Event ids separated by spaces, commas or new lines. */
  readonly eventIds?: string | undefined;
  readonly target?: string | undefined;
  readonly resetAttempts?: string | undefined;
  readonly why?: string | undefined;
  /** Present on the confirmation's post: move for real. */
  readonly confirm?: string | undefined;
}

const filled = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
};

/**
 * The redrive request a posted form asks for: a dry run unless the form is the confirmation.
 * Not validated here: the redrive validates it as it validates the CLI's.
 */
export const redriveRequestOf = (form: RedriveForm, by: string): RedriveRequestInput => {
  const reason = filled(form.reason);
  const eventIds = filled(form.eventIds)?.split(/[\s,]+/);
  return {
    eventIds,
    reasons: reason === undefined ? undefined : [reason as DeadLetterReason],
    target: filled(form.target),
    resetAttempts: form.resetAttempts === "on" ? true : undefined,
    why: filled(form.why),
    by,
    dryRun: form.confirm !== "yes",
  };
};

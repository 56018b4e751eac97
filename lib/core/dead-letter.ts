import type { DeadLetterReason } from "./decide.js";
import type { InputProblem } from "./errors.js";
import type { Outcome } from "./outcome.js";

/** Marks a dead-letter body as written by Ricochet (the native redrive moves raw bodies). */
export const DEAD_LETTER_KIND = "ricochet.dead_letter";

/**
 * The body of a message Ricochet sends to the dead-letter queue: everything needed to judge and
 * redrive the event without the record. The envelope is kept whole (it is the event, and the
 * queue is encrypted like the ingress queue); the summary fields never carry secrets.
 */
export interface DeadLetterMessage {
  readonly kind: typeof DEAD_LETTER_KIND;
  readonly version: 1;
  readonly reason: DeadLetterReason;
  /** Present whenever an id could be read, even from an invalid envelope. */
  readonly eventId?: string | undefined;
  /** The envelope to redrive; absent for an invalid envelope. */
  readonly envelope?: unknown;
  /** The original body, cut to a bounded size, when it was not a valid envelope. */
  readonly rawBody?: string | undefined;
  readonly problems?: readonly InputProblem[] | undefined;
  readonly attempts: number;
  readonly generation: number;
  readonly lastOutcome?: Outcome | undefined;
  readonly deadLetteredAt: string;
}

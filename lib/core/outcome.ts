import { ErrorCategory as Category, type ErrorCategory, type RetryPolicy } from "./policy.js";

/** What a target adapter observed for one call. Adapters never decide retryability. */
export type AttemptResult =
  | {
      readonly kind: "response";
      readonly statusCode: number;
      /** Raw `Retry-After` header, if any. */
      readonly retryAfter?: string | undefined;
      /** At most a short excerpt of the body, for the record. */
      readonly bodyExcerpt?: string | undefined;
      readonly durationMs: number;
    }
  | {
      readonly kind: "error";
      readonly category: ErrorCategory;
      /** Whether the request may have reached the receiver (it matters for `uncertain`). */
      readonly requestSent: boolean;
      readonly message: string;
      readonly durationMs: number;
    };

/** The four classes every attempt falls into. */
export const OutcomeClass = {
  SUCCESS: "success",
  RETRYABLE: "retryable",
  /** Retryable, but the receiver may already have acted: the same Idempotency-Key is reused. */
  UNCERTAIN: "uncertain",
  PERMANENT: "permanent",
} as const;
export type OutcomeClass = (typeof OutcomeClass)[keyof typeof OutcomeClass];

/** The classified result of one attempt, as stored on the record. */
export interface Outcome {
  readonly class: OutcomeClass;
  readonly statusCode?: number | undefined;
  readonly errorCategory?: ErrorCategory | undefined;
  readonly message: string;
}

/** Longest message kept on a record or in a dead-letter summary. */
export const MAX_OUTCOME_MESSAGE_LENGTH = 256;

/**
 * Cuts text to at most `max` UTF-16 code units (what `length` and DynamoDB's limits count),
 * ending in "…" when cut, without splitting a surrogate pair.
 */
export const truncate = (text: string, max: number = MAX_OUTCOME_MESSAGE_LENGTH): string => {
  if (text.length <= max) return text;
  if (max < 1) return "";
  let cut = max - 1;
  // A high surrogate at the cut would be left without its pair: cut before it instead.
  const last = text.charCodeAt(cut - 1);
  if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return `${text.slice(0, cut)}…`;
};

const RETRYABLE_STATUS = new Set([408, 425, 429]);

const classifyStatus = (statusCode: number): OutcomeClass => {
  if (statusCode >= 200 && statusCode < 300) return OutcomeClass.SUCCESS;
  if (statusCode >= 500 || RETRYABLE_STATUS.has(statusCode)) return OutcomeClass.RETRYABLE;
  return OutcomeClass.PERMANENT;
};

const classifyError = (category: ErrorCategory, requestSent: boolean): OutcomeClass => {
  switch (category) {
    case Category.INVALID_TARGET:
    case Category.TARGET_REFUSED:
      return OutcomeClass.PERMANENT;
    case Category.TIMEOUT:
    case Category.CONNECTION_RESET:
    case Category.UNKNOWN:
      return requestSent ? OutcomeClass.UNCERTAIN : OutcomeClass.RETRYABLE;
    default:
      return OutcomeClass.RETRYABLE;
  }
};

/**
 * Classifies an attempt. The policy's `noRetryOnStatus` wins over `retryOnStatus`, which wins
 * over the defaults; a success is never overridden.
 */
export const classify = (result: AttemptResult, policy: RetryPolicy): Outcome => {
  const key = result.kind === "response" ? result.statusCode : result.category;
  const natural =
    result.kind === "response"
      ? classifyStatus(result.statusCode)
      : classifyError(result.category, result.requestSent);
  const message =
    result.kind === "response"
      ? truncate(`HTTP ${result.statusCode}${result.bodyExcerpt ? `: ${result.bodyExcerpt}` : ""}`)
      : truncate(result.message);
  const base = {
    statusCode: result.kind === "response" ? result.statusCode : undefined,
    errorCategory: result.kind === "error" ? result.category : undefined,
    message,
  };
  if (natural === OutcomeClass.SUCCESS) return { class: natural, ...base };
  if (policy.noRetryOnStatus.includes(key)) return { class: OutcomeClass.PERMANENT, ...base };
  if (policy.retryOnStatus.includes(key) && natural === OutcomeClass.PERMANENT) {
    return { class: OutcomeClass.RETRYABLE, ...base };
  }
  return { class: natural, ...base };
};

import { ErrorCategory as Category, type ErrorCategory, type RetryPolicy } from "./policy.js";
import { redactCredentials, redactText } from "./redact.js";

/** What a target adapter observed for one call. Adapters never decide retryability. */
export type AttemptResult =
  | {
      readonly kind: "response";
      readonly statusCode: number;
      /** Raw `Retry-After` header, if any. */
      readonly retryAfter?: string | undefined;
      /**
       * At most a short excerpt of the body, for the record, passed through
       * {@link storedExcerpt} with the request's secrets before any cut.
       */
      readonly bodyExcerpt?: string | undefined;
      readonly durationMs: number;
    }
  | {
      readonly kind: "error";
      readonly category: ErrorCategory;
      /** Whether the request may have reached the receiver (it matters for `uncertain`). */
      readonly requestSent: boolean;
      /** Passed through {@link storedExcerpt} with the request's secrets. */
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

/** Options of {@link storedExcerpt}. */
export interface ExcerptOptions {
  /**
   * Secret values the caller knows of (a target's secret header values, its URL's password and
   * their encodings), blanked besides the credential-shaped values every excerpt loses.
   */
  readonly secrets?: readonly string[];
  /**
   * `text` is itself the start of something longer (a body read up to a bound): a known secret
   * cut by its end is blanked too.
   */
  readonly cutShort?: boolean;
  /** Longest result, in UTF-16 code units, as {@link truncate} counts; default no limit. */
  readonly maxLength?: number;
}

/**
 * The one way text quoted from a receiver or an error (body excerpts, error messages) becomes
 * something Ricochet keeps: a record's outcome and history, `ricochet status`, a dead-letter
 * summary. Secrets are blanked in the whole text first — the known `secrets`, then every `Basic`
 * or `Bearer` credential — and only then is it cut, so no cut can leave part of a secret behind.
 */
export const storedExcerpt = (text: string, options: ExcerptOptions = {}): string =>
  truncate(
    redactCredentials(redactText(text, options.secrets ?? [], { cutShort: options.cutShort })),
    options.maxLength ?? Number.POSITIVE_INFINITY,
  );

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
  const message = storedExcerpt(
    result.kind === "response"
      ? `HTTP ${result.statusCode}${result.bodyExcerpt ? `: ${result.bodyExcerpt}` : ""}`
      : result.message,
    { maxLength: MAX_OUTCOME_MESSAGE_LENGTH },
  );
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

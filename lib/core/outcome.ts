import { type FunctionAnswer, retryAfterOfVerdict } from "./lambda-verdict.js";
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
      /**
       * What a Lambda function that ran answered (category `function_error`): a verdict, a
       * malformed one, or an unhandled error and its type.
       */
      readonly functionAnswer?: FunctionAnswer | undefined;
      /**
       * The call failed on Ricochet's side before anything went towards the target: its time ran
       * out while the host was being resolved or the body signed, or signing failed. Such a
       * failure says nothing about the target (lib/core/target-health.ts).
       */
      readonly beforeContact?: boolean | undefined;
    };

/** Refusals of the envelope itself, which Ricochet decides before anything is sent. */
export const REFUSAL_CATEGORIES: ReadonlySet<string> = new Set<string>([
  Category.INVALID_TARGET,
  Category.TARGET_REFUSED,
]);

/**
 * Whether `result` is Ricochet refusing the envelope before any call (an invalid target, an
 * address or Lambda function its rules refuse): the target was never tried.
 */
export const refusedBeforeCall = (result: AttemptResult): boolean =>
  result.kind === "error" && !result.requestSent && REFUSAL_CATEGORIES.has(result.category);

/**
 * Whether `result` is a timeout that fired before the request was sent: the target was not
 * reached. With the whole timeout the target's (a connection that never opened) this says
 * something about the target; cut short by Ricochet's own lease, it says only that Ricochet ran
 * out of time (see `ClaimedAttempt.callCutByLease`).
 */
export const timedOutBeforeSending = (result: AttemptResult): boolean =>
  result.kind === "error" && !result.requestSent && result.category === Category.TIMEOUT;

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
 * The class an attempt's result has before any policy's lists: what the target itself said (its
 * status, a function's own verdict) or what happened to the call. A producer's `retryOn` and
 * `noRetryOn` lists change what becomes of its event, never this.
 */
export const naturalClass = (result: AttemptResult): OutcomeClass =>
  result.kind === "response"
    ? classifyStatus(result.statusCode)
    : (verdictClass(result.functionAnswer) ?? classifyError(result.category, result.requestSent));

/** The class a function's verdict says: it speaks like an HTTP receiver's 503 or 4xx. */
const verdictClass = (answer: FunctionAnswer | undefined): OutcomeClass | undefined => {
  if (answer?.kind !== "verdict") return undefined;
  return answer.verdict.verdict === "retry" ? OutcomeClass.RETRYABLE : OutcomeClass.PERMANENT;
};

/**
 * The class a function's own answer settles, or `undefined` when it settles none. A verdict is
 * the function speaking like an HTTP receiver; an unhandled error is judged by the policy's
 * error-type lists. A malformed verdict settles nothing: it stays a retryable `function_error`
 * whatever the lists say, as it has no error type an operator could have listed.
 */
const classifyAnswer = (
  answer: FunctionAnswer | undefined,
  policy: RetryPolicy,
): OutcomeClass | undefined => {
  if (answer === undefined || answer.kind === "malformed_verdict") return undefined;
  if (answer.kind === "verdict") return verdictClass(answer);
  const type = answer.errorType;
  if (type !== undefined && policy.noRetryErrorTypes.includes(type)) return OutcomeClass.PERMANENT;
  // An error without a type cannot be shown to be on the allow-list.
  if (
    policy.retryOnlyErrorTypes.length > 0 &&
    (type === undefined || !policy.retryOnlyErrorTypes.includes(type))
  ) {
    return OutcomeClass.PERMANENT;
  }
  return undefined;
};

/**
 * The `Retry-After` an attempt carries: the HTTP header, or a Lambda verdict's
 * `retryAfterSeconds` in the header's delay-seconds form, so both meet the same parsing and caps.
 */
export const retryAfterOf = (result: AttemptResult): string | undefined => {
  if (result.kind === "response") return result.retryAfter;
  const answer = result.functionAnswer;
  const seconds = answer?.kind === "verdict" ? retryAfterOfVerdict(answer.verdict) : undefined;
  return seconds === undefined ? undefined : String(seconds);
};

/**
 * Classifies an attempt. The policy's `noRetryOnStatus` wins over everything but a success; a
 * Lambda function's own answer (its verdict, or its error type judged by the policy's
 * error-type lists) comes next, then `retryOnStatus`, then the defaults.
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
  const answered =
    result.kind === "error" ? classifyAnswer(result.functionAnswer, policy) : undefined;
  if (answered !== undefined) return { class: answered, ...base };
  if (policy.retryOnStatus.includes(key) && natural === OutcomeClass.PERMANENT) {
    return { class: OutcomeClass.RETRYABLE, ...base };
  }
  return { class: natural, ...base };
};

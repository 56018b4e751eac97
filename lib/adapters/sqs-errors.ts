import {
  QueueUnavailableError,
  ResourceNotFoundError,
  type RicochetError,
} from "../core/errors.js";

/*
 * The one place SQS SDK errors become Ricochet errors. Everything above the adapters sees
 * ResourceNotFoundError (the queue is gone or mistyped: no retry will help) or
 * QueueUnavailableError (with `context.transient` saying whether a later try may succeed).
 */

/** Error names SQS uses for a missing queue, over the JSON and the legacy query protocol. */
const MISSING_QUEUE = new Set([
  "QueueDoesNotExist",
  "AWS.SimpleQueueService.NonExistentQueue",
  "NonExistentQueue",
]);

/** Error names that mean "slow down", whatever their HTTP status. */
const THROTTLING = new Set([
  "RequestThrottled",
  "ThrottlingException",
  "Throttling",
  "KmsThrottled",
  "TooManyRequestsException",
]);

/** Node socket error codes: the request may not have reached SQS at all. */
const NETWORK = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
]);

interface SdkErrorShape {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly Code?: unknown;
  readonly $fault?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

const shape = (error: unknown): SdkErrorShape =>
  error !== null && typeof error === "object" ? (error as SdkErrorShape) : {};

const names = (error: unknown): string[] => {
  const s = shape(error);
  return [s.name, s.code, s.Code].filter((n): n is string => typeof n === "string");
};

/** Whether an SQS error names a queue that does not exist. */
const isMissingQueueError = (error: unknown): boolean =>
  names(error).some((name) => MISSING_QUEUE.has(name));

/**
 * Whether an SQS failure (an SDK error, or a batch entry's error code) may succeed if tried again:
 * throttling, server faults (5xx) and network failures. Client faults (bad input, missing queue)
 * never do.
 */
export const isTransientSqsError = (error: unknown): boolean => {
  if (isMissingQueueError(error)) return false;
  const s = shape(error);
  if (names(error).some((name) => THROTTLING.has(name) || NETWORK.has(name))) return true;
  if (s.name === "TimeoutError") return true;
  const status = s.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429;
  if (s.$fault === "server") return true;
  // No HTTP status and no fault: the call never got an answer (socket closed, DNS, abort).
  return s.$fault === undefined && error instanceof Error;
};

/** What the failing call was, for the error message and context. */
export interface SqsCallContext {
  readonly operation: string;
  readonly queueUrl: string;
}

const describe = (error: unknown): string => {
  if (error instanceof Error) return error.message === "" ? error.name : error.message;
  return String(error);
};

/**
 * Translates an SQS SDK error into a Ricochet error, keeping the original as `cause`. Errors
 * that already are Ricochet errors pass through unchanged.
 */
export const translateSqsError = (error: unknown, call: SqsCallContext): RicochetError => {
  if (error instanceof ResourceNotFoundError || error instanceof QueueUnavailableError) {
    return error;
  }
  const context = { operation: call.operation, queueUrl: call.queueUrl };
  if (isMissingQueueError(error)) {
    return new ResourceNotFoundError(`queue does not exist: ${call.queueUrl}`, {
      cause: error,
      context,
    });
  }
  const transient = isTransientSqsError(error);
  return new QueueUnavailableError(`SQS ${call.operation} failed: ${describe(error)}`, {
    cause: error,
    context: { ...context, transient },
  });
};

/** Runs one SQS call, translating whatever it throws. */
export const sqsCall = async <T>(call: SqsCallContext, run: () => Promise<T>): Promise<T> => {
  try {
    return await run();
  } catch (error) {
    throw translateSqsError(error, call);
  }
};

/** A batch request's failed entry, as SQS reports it beside the entries that succeeded. */
export interface SqsBatchEntryFailure {
  readonly Code?: string | undefined;
  readonly Message?: string | undefined;
  readonly SenderFault?: boolean | undefined;
}

/**
 * Translates one failed entry of a batch request like the error the single call would have
 * thrown: the code is the error's name, and `SenderFault` is a client fault (never transient
 * unless the code says throttling).
 */
export const translateSqsBatchEntryFailure = (
  failure: SqsBatchEntryFailure,
  call: SqsCallContext,
): RicochetError => {
  const code = failure.Code ?? "BatchEntryFailed";
  const text = failure.Message === undefined ? code : `${code}: ${failure.Message}`;
  const error = Object.assign(new Error(text), {
    name: code,
    $fault: failure.SenderFault === true ? "client" : "server",
  });
  return translateSqsError(error, call);
};

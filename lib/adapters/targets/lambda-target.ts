import { performance } from "node:perf_hooks";
import type { InvokeCommandOutput, LambdaClient } from "@aws-sdk/client-lambda";
import { errorMessage } from "../../core/errors.js";
import {
  checkLambdaTarget,
  DEFAULT_LAMBDA_TIMEOUT_MS,
  type LambdaTargetRules,
} from "../../core/lambda-target-policy.js";
import {
  describeVerdict,
  type FunctionAnswer,
  readFunctionError,
  readResultVerdict,
} from "../../core/lambda-verdict.js";
import { type AttemptResult, storedExcerpt } from "../../core/outcome.js";
import { ErrorCategory } from "../../core/policy.js";
import type { DeliveryRequest, DeliveryTarget } from "../../core/ports.js";
import { traceHeaders } from "../../core/trace-context.js";
import { decodeExcerpt, describeFunctionError, parsePayload } from "../lambda-payload.js";
import { notifySent } from "./notify-sent.js";

/** Options of {@link createLambdaTarget}. */
export interface LambdaTargetOptions {
  /**
   * Gives the client to invoke with (`AwsClients.lambda`, which loads it on first use). Give it
   * `maxAttempts: 1`: Ricochet's policy owns retries, and an SDK retry after a 5xx or a reset
   * could run the function again within one attempt.
   */
  readonly lambda: () => Promise<LambdaClient>;
  /** Abandons a call still running after this long (default {@link DEFAULT_LAMBDA_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** Bytes of the function's response kept as an excerpt (default 512). */
  readonly maxBodyExcerptBytes?: number;
  /** Monotonic milliseconds, for durations. */
  readonly now?: () => number;
  /**
   * Ricochet's own functions, the account and the listed cross-account ARNs, to refuse loops and
   * foreign accounts before invoking. Omitted: nothing is known to be Ricochet's own, and only a
   * target without an account (a bare name or alias) is accepted.
   */
  readonly rules?: LambdaTargetRules;
}

/**
 * The client context sent with every invocation (base64 JSON, as Lambda requires). Node functions
 * read `context.clientContext.custom`, Python ones `context.client_context.custom`: the event id
 * to deduplicate on (the HTTP target's `Idempotency-Key`) and the attempt number. The event
 * itself is exactly the envelope's payload.
 */
export interface RicochetClientContext {
  readonly custom: {
    readonly idempotencyKey: string;
    readonly attempt: string;
    /** The producer's W3C trace context, when its message carried one, beside the key. */
    readonly traceparent?: string;
    readonly tracestate?: string;
  };
  /**
   * The same trace context where OpenTelemetry's AWS SDK instrumentation injects it on an
   * invoke (`Custom`, capitalised), which its Lambda instrumentation and the ADOT layer read:
   * an instrumented function joins the trace with no code. Absent without a trace.
   */
  readonly Custom?: { readonly traceparent?: string; readonly tracestate?: string };
}

/*
 * The one place Lambda's errors become Ricochet's categories. The rules: a function that ran and
 * failed is `function_error`; a function Lambda never started is retryable (`throttled`, or
 * `function_error` when its environment could not be set up) or permanent (`invalid_target`,
 * `target_refused`) when no retry can help; a call whose fate is unknown is sent (uncertain).
 */

const THROTTLED = new Set([
  "TooManyRequestsException",
  "ThrottlingException",
  "EC2ThrottledException",
  "ServiceQuotaExceededException",
]);

const INVALID_TARGET = new Set([
  "ResourceNotFoundException",
  "InvalidParameterValueException",
  "InvalidRequestContentException",
  "RequestTooLargeException",
  "SerializedRequestEntityTooLargeException",
  "UnsupportedMediaTypeException",
  "ModeNotSupportedException",
  "NoPublishedVersionException",
]);

const REFUSED = new Set(["AccessDeniedException", "RecursiveInvocationException"]);

/** The function exists but Lambda could not start it (network, storage, keys, runtime, state). */
const ENVIRONMENT_FAILURE =
  /^(EC2|EFS|ENI|KMS|SnapStart|S3Files|CodeArtifact)|^(InvalidRuntime|InvalidSecurityGroupID|InvalidSubnetID|InvalidZipFile|ResourceConflict|ResourceNotReady|SubnetIPAddressLimitReached)Exception$/;

interface SdkErrorShape {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly $fault?: unknown;
}

const asShape = (error: unknown): SdkErrorShape =>
  typeof error === "object" && error !== null ? (error as SdkErrorShape) : {};

const categoriseError = (
  error: unknown,
): { category: ErrorCategory; requestSent: boolean; label: string } => {
  const shape = asShape(error);
  const name = typeof shape.name === "string" ? shape.name : "Error";
  const code = typeof shape.code === "string" ? shape.code : undefined;
  const label = code ?? name;
  const result = (category: ErrorCategory, requestSent: boolean) => ({
    category,
    requestSent,
    label,
  });
  if (THROTTLED.has(name)) return result(ErrorCategory.THROTTLED, false);
  if (INVALID_TARGET.has(name)) return result(ErrorCategory.INVALID_TARGET, false);
  if (REFUSED.has(name)) return result(ErrorCategory.TARGET_REFUSED, false);
  if (ENVIRONMENT_FAILURE.test(name)) return result(ErrorCategory.FUNCTION_ERROR, false);
  switch (code) {
    case "ECONNREFUSED":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return result(ErrorCategory.CONNECTION_REFUSED, false);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return result(ErrorCategory.DNS_FAILURE, false);
    // The SDK writes the request as one piece; a reset cannot tell us how much Lambda had.
    case "ECONNRESET":
    case "EPIPE":
      return result(ErrorCategory.CONNECTION_RESET, true);
    case "ETIMEDOUT":
      return result(ErrorCategory.TIMEOUT, true);
  }
  if (name === "TimeoutError" || name === "AbortError") return result(ErrorCategory.TIMEOUT, true);
  // ServiceException and other server faults: the function may have run.
  return result(ErrorCategory.UNKNOWN, shape.$fault !== "client");
};

/** The record's message for a function's verdict, or `undefined` for an unhandled error. */
const describeAnswer = (answer: FunctionAnswer): string | undefined => {
  switch (answer.kind) {
    case "verdict":
      return describeVerdict(answer.verdict);
    case "malformed_verdict":
      return `malformed ricochet verdict: ${answer.problem}`;
    case "unhandled_error":
      return undefined;
  }
};

type Elapsed = () => number;
type InvokeCommandClass = typeof import("@aws-sdk/client-lambda").InvokeCommand;

/** A target refused before any call: permanent, as no retry makes it callable. */
const refusedBeforeCall = (
  category: ErrorCategory,
  message: string,
  durationMs: number,
): AttemptResult => ({ kind: "error", category, requestSent: false, message, durationMs });

const clientContextOf = ({ envelope, attempt, trace }: DeliveryRequest): RicochetClientContext => {
  const carriers = traceHeaders(trace);
  return {
    custom: { idempotencyKey: envelope.eventId, attempt: String(attempt), ...carriers },
    ...(trace === undefined ? {} : { Custom: carriers }),
  };
};

/** The client and its command class, or the attempt's result when they cannot be loaded. */
const loadInvoker = async (
  options: LambdaTargetOptions,
  elapsed: Elapsed,
): Promise<
  { readonly client: LambdaClient; readonly InvokeCommand: InvokeCommandClass } | AttemptResult
> => {
  try {
    // Loaded with the client on the first Lambda target: most deployments never pay for it.
    const { InvokeCommand } = await import("@aws-sdk/client-lambda");
    return { InvokeCommand, client: await options.lambda() };
  } catch (error) {
    return {
      kind: "error",
      category: ErrorCategory.UNKNOWN,
      requestSent: false,
      message: `cannot load the Lambda client: ${errorMessage(error)}`,
      durationMs: elapsed(),
      beforeContact: true,
    };
  }
};

/** The invocation's output, or the result its failure maps to. */
const invoke = async (
  client: LambdaClient,
  command: InstanceType<InvokeCommandClass>,
  { onSent, allowedMs }: { readonly onSent: DeliveryRequest["onSent"]; readonly allowedMs: number },
  elapsed: Elapsed,
): Promise<InvokeCommandOutput | AttemptResult> => {
  try {
    const sending = client.send(command, {
      abortSignal: AbortSignal.timeout(Math.max(0, allowedMs)),
    });
    // The SDK gives no hook for "request written"; the call leaving is the nearest mark.
    notifySent(onSent);
    return await sending;
  } catch (error) {
    const { category, requestSent, label } = categoriseError(error);
    const message = asShape(error).message;
    return {
      kind: "error",
      category,
      requestSent,
      message: storedExcerpt(
        `${label}: ${typeof message === "string" ? message : "invocation failed"}`,
      ),
      durationMs: elapsed(),
    };
  }
};

/** A function's answer: a `function_error` when it failed or gave a verdict, else its response. */
const resultOfOutput = (
  output: InvokeCommandOutput,
  maxExcerpt: number,
  elapsed: Elapsed,
): AttemptResult => {
  const payloadText = decodeExcerpt(output.Payload, Number.POSITIVE_INFINITY);
  // The whole payload is redacted before the excerpt is cut from it: a cut first could keep the
  // start of a token too short to be recognised as one.
  const excerpt = decodeExcerpt(Buffer.from(storedExcerpt(payloadText), "utf8"), maxExcerpt);
  const parsed = parsePayload(payloadText);
  const answer =
    output.FunctionError === undefined ? readResultVerdict(parsed) : readFunctionError(parsed);
  if (answer !== undefined) {
    const said = describeAnswer(answer);
    return {
      kind: "error",
      category: ErrorCategory.FUNCTION_ERROR,
      requestSent: true,
      // Parsed from the raw payload, so a token JSON escapes is redacted once unescaped.
      message: storedExcerpt(
        said ??
          `function error (${output.FunctionError}): ${describeFunctionError(payloadText, excerpt)}`,
      ),
      durationMs: elapsed(),
      functionAnswer: answer,
    };
  }
  return {
    kind: "response",
    statusCode: output.StatusCode ?? 200,
    bodyExcerpt: excerpt === "" ? undefined : excerpt,
    durationMs: elapsed(),
  };
};

const isResult = (value: object): value is AttemptResult => "kind" in value;

/**
 * A Lambda delivery target: a synchronous (`RequestResponse`) invocation whose event is exactly
 * the envelope's payload. The event id and attempt travel in the invocation's client context
 * ({@link RicochetClientContext}) so the function can deduplicate without its event changing
 * shape. A function error (`X-Amz-Function-Error`) is a `function_error` result with the request
 * sent, and so is a result giving a verdict (`{ "ricochet": … }`, see `lambda-verdict.ts`): both
 * carry the function's answer for the policy to classify. Lambda's own errors are mapped here and
 * nowhere else. Messages and excerpts go through
 * {@link storedExcerpt}, so credentials a function or Lambda quotes are blanked. Never throws.
 */
export const createLambdaTarget = (options: LambdaTargetOptions): DeliveryTarget => {
  const now = options.now ?? (() => performance.now());
  const timeoutMs = options.timeoutMs ?? DEFAULT_LAMBDA_TIMEOUT_MS;
  const maxExcerpt = options.maxBodyExcerptBytes ?? 512;
  const rules: LambdaTargetRules = options.rules ?? { ownFunctions: [], allowedArns: [] };

  const deliver = async (request: DeliveryRequest): Promise<AttemptResult> => {
    const started = now();
    const elapsed = (): number => Math.max(0, Math.round(now() - started));
    const { envelope } = request;
    const target = envelope.target;
    if (target.type !== "lambda") {
      const message = `not a lambda target: ${target.type}`;
      return refusedBeforeCall(ErrorCategory.INVALID_TARGET, message, elapsed());
    }
    // Like an HTTP target's internal address: permanent, and refused before any call.
    const verdict = checkLambdaTarget(target.functionName, rules);
    if (!verdict.allowed) {
      const message = `refused lambda target ${target.functionName}: ${verdict.reason}`;
      return refusedBeforeCall(ErrorCategory.TARGET_REFUSED, message, elapsed());
    }
    const context = clientContextOf(request);
    const invoker = await loadInvoker(options, elapsed);
    if (isResult(invoker)) return invoker;
    const command = new invoker.InvokeCommand({
      FunctionName: target.functionName,
      InvocationType: "RequestResponse",
      Payload: Buffer.from(JSON.stringify(envelope.payload ?? null), "utf8"),
      ClientContext: Buffer.from(JSON.stringify(context), "utf8").toString("base64"),
    });
    // The cut-off counts from the start of the attempt, loading the client included.
    const allowedMs =
      Math.min(timeoutMs, request.timeoutMs ?? Number.POSITIVE_INFINITY) - elapsed();
    const output = await invoke(
      invoker.client,
      command,
      { onSent: request.onSent, allowedMs },
      elapsed,
    );
    return isResult(output) ? output : resultOfOutput(output, maxExcerpt, elapsed);
  };

  return { deliver };
};

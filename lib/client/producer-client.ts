import { setTimeout as delay } from "node:timers/promises";
import {
  type BatchResultErrorEntry,
  type MessageAttributeValue,
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  type SendMessageBatchRequestEntry,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { traceToAttributes } from "../adapters/message-schedule.js";
import { isTransientSqsError, translateSqsError } from "../adapters/sqs-errors.js";
import { sqsMessageBytes } from "../adapters/sqs-message-size.js";
import {
  type EnvelopeParseResult,
  envelopeTooLarge,
  MAX_ENVELOPE_BYTES,
  MAX_MESSAGE_BYTES,
  readableEventId,
  validateEnvelope,
} from "../core/envelope.js";
import {
  errorMessage,
  type InputProblem,
  InvalidEnvelopeError,
  QueueUnavailableError,
  ResourceNotFoundError,
} from "../core/errors.js";
import { type RandomSource, randomInt, systemRandom } from "../core/random.js";
import { scheduleProblems } from "../core/schedule.js";
import {
  notBeforeOfSchedule,
  type SubmitSchedule,
  scheduleEnvelope,
} from "../core/submit-schedule.js";
import { type SubmitTrace, traceOfSubmission } from "../core/submit-trace.js";

export type { SubmitTrace } from "../core/submit-trace.js";

/** SQS's limit on entries in one `SendMessageBatch`. */
export const MAX_BATCH_ENTRIES = 10;
/** Tries of one batch entry before it is reported as rejected (the SDK retries inside each try). */
const DEFAULT_MAX_SEND_ATTEMPTS = 4;
const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 2_000;

export interface RicochetClientOptions {
  /** URL of the deployment's ingress queue (stack output `IngressQueueUrl`). */
  readonly queueUrl: string;
  /** A configured SQS client; when absent one is made from `endpoint` and `region`. */
  readonly sqs?: SQSClient;
  /** SQS endpoint override (LocalStack, an emulator, a VPC endpoint). */
  readonly endpoint?: string;
  readonly region?: string;
  /** Tries per entry for transient failures (throttling, server faults); default 4. */
  readonly maxSendAttempts?: number;
  /** Injected for tests; defaults to `Math.random`. */
  readonly random?: RandomSource;
  /** Injected for tests; defaults to a timer. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Wall-clock milliseconds, for schedules; injected for tests, defaults to `Date.now`. */
  readonly now?: () => number;
  /**
   * The producer's current trace context, asked for at each submission that names none of its
   * own, so that every event joins the trace of the code that submitted it. With OpenTelemetry:
   * `() => { const carrier = {}; propagation.inject(context.active(), carrier); return carrier; }`.
   * Default: none (events start traces of their own when Ricochet traces).
   */
  readonly activeTrace?: () => SubmitTrace | undefined;
}

/**
 * Options of one submission. `notBefore` or `delaySeconds` schedules every envelope in it: each
 * gets that `notBefore` (an envelope already naming another instant is rejected with both), and
 * is checked as the orchestrator would check it — at most 14 days ahead, not after its
 * `deadline` nor its policy's `deadlineSeconds` — so a schedule no attempt could keep is
 * refused here instead of being dead-lettered later. `trace` is the W3C trace context every
 * event in it carries (as the `traceparent`/`tracestate` message attributes), through its
 * retries and redrives to its target; it overrides the client's `activeTrace`.
 */
export interface SubmitOptions extends SubmitSchedule {
  readonly trace?: SubmitTrace | undefined;
}

/** An event SQS accepted: Ricochet now owns its delivery. */
export interface AcceptedEvent {
  readonly eventId: string;
  readonly messageId: string;
}

/** An event that was not sent, or not accepted, and why. `index` is its position in the input. */
export interface RejectedEvent {
  readonly eventId?: string | undefined;
  readonly index: number;
  /** Validation problems, when the envelope was invalid. */
  readonly problems?: readonly InputProblem[] | undefined;
  /** What went wrong otherwise (too large, duplicate, refused by SQS). */
  readonly error?: string | undefined;
}

export interface SubmitReport {
  readonly accepted: AcceptedEvent[];
  readonly rejected: RejectedEvent[];
}

export interface RicochetClient {
  /**
   * Validates and sends one envelope; `options` may schedule it ({@link SubmitOptions}).
   * @example `await ricochet.submit(envelope, { delaySeconds: 3600 }); // not before an hour from now`
   * @throws InvalidRequestError when `options` holds an invalid schedule or trace context
   * (nothing is sent).
   * @throws InvalidEnvelopeError when the envelope is invalid (nothing is sent).
   * @throws QueueUnavailableError when SQS refused it or stayed unavailable.
   * @throws ResourceNotFoundError when the queue does not exist.
   */
  submit(envelope: unknown, options?: SubmitOptions): Promise<AcceptedEvent>;
  /**
   * Validates and sends many envelopes, ten to a `SendMessageBatch`, and reports each one.
   * Invalid envelopes are reported, never sent; a repeated event id is sent once and its
   * repeats are reported as rejected. `options` may schedule them all ({@link SubmitOptions}).
   * @throws InvalidRequestError when `options` holds an invalid schedule or trace context
   * (nothing is sent).
   * @throws ResourceNotFoundError when the queue does not exist (nothing can be accepted).
   */
  submitBatch(envelopes: readonly unknown[], options?: SubmitOptions): Promise<SubmitReport>;
}

interface Pending {
  readonly index: number;
  readonly eventId: string;
  readonly body: string;
  /** The submission's trace context, the same on every entry of it. */
  readonly attributes: Record<string, MessageAttributeValue>;
}

/**
 * Groups entries into batches SQS accepts: at most ten entries and at most 1 MiB in total
 * (the batch limit is the same as one message's).
 */
const toBatches = (entries: readonly Pending[]): Pending[][] => {
  const batches: Pending[][] = [];
  let current: Pending[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = sqsMessageBytes(entry.body, entry.attributes);
    if (current.length === MAX_BATCH_ENTRIES || bytes + size > MAX_MESSAGE_BYTES) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
};

/** An input ready to send: `body` is the exact text validated, and the text sent. */
type PreparedEnvelope =
  | { readonly ok: true; readonly eventId: string; readonly body: string }
  | Extract<EnvelopeParseResult, { ok: false }>;

/** The input's event id for a report, if it has a readable one; a hostile getter is no id. */
const reportableEventId = (value: unknown): string | undefined => {
  try {
    return readableEventId(value);
  } catch {
    return undefined;
  }
};

/**
 * The input's JSON text, or why it has none. Everything after works on this text, never on the
 * object again: a `toJSON`, a getter or a proxy may answer differently each time it is read.
 */
const jsonTextOf = (
  value: unknown,
): { readonly ok: true; readonly text: string } | PreparedEnvelope => {
  const refuse = (message: string): PreparedEnvelope => ({
    ok: false,
    problems: [{ path: "", message }],
    eventId: reportableEventId(value),
  });
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return refuse(`cannot be sent as JSON: ${errorMessage(error)}`);
  }
  // undefined, a function, or a toJSON that returns undefined: there is nothing to send.
  return text === undefined
    ? refuse("has no JSON form (JSON.stringify gave undefined)")
    : { ok: true, text };
};

/**
 * One input as it will be sent: turned into JSON text once, given the submission's `notBefore`,
 * validated as that text's parse, and its schedule judged against the clock as the orchestrator
 * will judge it on the event's first sight. The text validated is the text returned to send.
 */
const prepareEnvelope = (
  value: unknown,
  notBefore: string | undefined,
  nowMs: number,
): PreparedEnvelope => {
  const json = jsonTextOf(value);
  if (!("text" in json)) return json;
  const data: unknown = JSON.parse(json.text);
  const scheduled =
    notBefore === undefined
      ? { ok: true as const, value: data }
      : scheduleEnvelope(data, notBefore, "the submission's schedule");
  if (!scheduled.ok) {
    return { ok: false, problems: scheduled.problems, eventId: readableEventId(data) };
  }
  const body = notBefore === undefined ? json.text : JSON.stringify(scheduled.value);
  const checked = validateEnvelope(JSON.parse(body));
  if (!checked.ok) return checked;
  const { eventId, notBefore: due, policy } = checked.envelope;
  const problems = scheduleProblems(due, policy?.deadlineSeconds, nowMs);
  return problems.length === 0 ? { ok: true, eventId, body } : { ok: false, problems, eventId };
};

const failureText = (failure: BatchResultErrorEntry): string =>
  `${failure.Code ?? "error"}: ${failure.Message ?? "refused by SQS"}`;

/** What sending needs of the client: where, how often to try, and how to wait between tries. */
interface Sender {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly maxAttempts: number;
  readonly random: RandomSource;
  readonly sleep: (ms: number) => Promise<void>;
}

const sqsClientOf = (options: RicochetClientOptions): SQSClient =>
  options.sqs ??
  new SQSClient({
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
  });

/** Full-jitter backoff before try `n + 1` (n ≥ 1), in milliseconds. */
const backoffMs = (random: RandomSource, tryNumber: number): number =>
  randomInt(random, 0, Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (tryNumber - 1)));

// Entry ids are positions in this batch: event ids may contain characters SQS refuses.
const entriesOf = (remaining: readonly Pending[]): SendMessageBatchRequestEntry[] =>
  remaining.map((p, i) => ({
    Id: String(i),
    MessageBody: p.body,
    ...(Object.keys(p.attributes).length === 0 ? {} : { MessageAttributes: p.attributes }),
  }));

/**
 * Reports what one try's answer accepted and what it refused for good; returns the entries
 * worth another try, with the last reason given for one.
 */
const sortTryOutcome = (
  output: SendMessageBatchCommandOutput,
  remaining: readonly Pending[],
  report: SubmitReport,
): { readonly retry: Pending[]; readonly lastError: string | undefined } => {
  for (const ok of output.Successful ?? []) {
    const entry = remaining[Number(ok.Id)];
    if (entry !== undefined && ok.MessageId !== undefined) {
      report.accepted.push({ eventId: entry.eventId, messageId: ok.MessageId });
    }
  }
  const retry: Pending[] = [];
  let lastError: string | undefined;
  for (const failure of output.Failed ?? []) {
    const entry = remaining[Number(failure.Id)];
    if (entry === undefined) continue;
    // SenderFault marks what no retry can fix (bad body, too large); the rest is SQS's fault.
    if (failure.SenderFault === false) {
      retry.push(entry);
      lastError = failureText(failure);
    } else {
      report.rejected.push({
        eventId: entry.eventId,
        index: entry.index,
        error: failureText(failure),
      });
    }
  }
  return { retry, lastError };
};

/** Sends one batch, retrying transient failures; reports what was accepted and refused. */
const sendBatch = async (
  sender: Sender,
  batch: readonly Pending[],
  report: SubmitReport,
): Promise<void> => {
  const { sqs, queueUrl, maxAttempts } = sender;
  const call = { operation: "SendMessageBatch", queueUrl };
  let remaining = [...batch];
  let lastError = "";
  for (let tryNumber = 1; tryNumber <= maxAttempts && remaining.length > 0; tryNumber++) {
    if (tryNumber > 1) await sender.sleep(backoffMs(sender.random, tryNumber - 1));
    let output: SendMessageBatchCommandOutput;
    try {
      output = await sqs.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entriesOf(remaining) }),
      );
    } catch (error) {
      const translated = translateSqsError(error, call);
      if (translated instanceof ResourceNotFoundError) throw translated;
      lastError = translated.message;
      if (isTransientSqsError(error)) continue;
      break;
    }
    const outcome = sortTryOutcome(output, remaining, report);
    remaining = outcome.retry;
    lastError = outcome.lastError ?? lastError;
  }
  for (const entry of remaining) {
    report.rejected.push({ eventId: entry.eventId, index: entry.index, error: lastError });
  }
};

/**
 * The envelopes worth sending, each checked, scheduled and sized; every other one is reported
 * rejected, a repeated event id included (it is sent once, as its first index).
 */
const pendingOf = (
  envelopes: readonly unknown[],
  submission: { readonly notBefore: string | undefined; readonly nowMs: number },
  attributes: Record<string, MessageAttributeValue>,
  report: SubmitReport,
): Pending[] => {
  const firstIndex = new Map<string, number>();
  const pending: Pending[] = [];
  envelopes.forEach((value, index) => {
    const checked = prepareEnvelope(value, submission.notBefore, submission.nowMs);
    if (!checked.ok) {
      report.rejected.push({ eventId: checked.eventId, index, problems: checked.problems });
      return;
    }
    const { eventId, body } = checked;
    const first = firstIndex.get(eventId);
    if (first !== undefined) {
      report.rejected.push({
        eventId,
        index,
        error: `duplicate eventId in this batch; sent once, as index ${first}`,
      });
      return;
    }
    firstIndex.set(eventId, index);
    // The envelope's own limit leaves room to dead-letter it, and a message always has room for
    // the trace's attributes (at most 600 bytes of that 8 KiB); a batch counts them (toBatches).
    const bytes = sqsMessageBytes(body);
    if (bytes > MAX_ENVELOPE_BYTES) {
      report.rejected.push({ eventId, index, error: envelopeTooLarge(bytes) });
      return;
    }
    pending.push({ index, eventId, body, attributes });
  });
  return pending;
};

/** The one event of a `submit`, accepted, or the error its rejection calls for. */
const acceptedOrThrow = (report: SubmitReport, queueUrl: string): AcceptedEvent => {
  const accepted = report.accepted[0];
  if (accepted !== undefined) return accepted;
  const rejected = report.rejected[0];
  if (rejected?.problems !== undefined) {
    throw new InvalidEnvelopeError(rejected.problems, {
      ...(rejected.eventId === undefined ? {} : { eventId: rejected.eventId }),
    });
  }
  throw new QueueUnavailableError(`event not accepted: ${rejected?.error ?? "unknown"}`, {
    context: { queueUrl, eventId: rejected?.eventId },
  });
};

/**
 * Creates a producer client for a Ricochet deployment. Envelopes are checked against the same
 * schema the orchestrator uses before anything is sent, so a mistake is reported to the caller
 * instead of being dead-lettered later.
 *
 * @example
 * ```ts
 * import { createRicochetClient } from "ricochet";
 *
 * const ricochet = createRicochetClient({ queueUrl: process.env.RICOCHET_QUEUE_URL ?? "" });
 * const { accepted, rejected } = await ricochet.submitBatch([
 *   {
 *     eventId: "order-1042-shipped",
 *     target: { type: "http", url: "https://hooks.example.com/shipping" },
 *     payload: { orderId: 1042 },
 *     policy: { maxAttempts: 5 },
 *   },
 * ]);
 * for (const r of rejected) console.error(r.eventId, r.problems ?? r.error);
 * ```
 */
export const createRicochetClient = (options: RicochetClientOptions): RicochetClient => {
  const { queueUrl } = options;
  const sender: Sender = {
    sqs: sqsClientOf(options),
    queueUrl,
    maxAttempts: Math.max(1, options.maxSendAttempts ?? DEFAULT_MAX_SEND_ATTEMPTS),
    random: options.random ?? systemRandom,
    sleep: options.sleep ?? ((ms: number) => delay(ms)),
  };
  const now = options.now ?? Date.now;

  const submitBatch = async (
    envelopes: readonly unknown[],
    submitOptions?: SubmitOptions,
  ): Promise<SubmitReport> => {
    const nowMs = now();
    const notBefore = notBeforeOfSchedule(submitOptions, nowMs);
    const attributes = traceToAttributes(
      traceOfSubmission(submitOptions?.trace ?? options.activeTrace?.()),
    );
    const report: SubmitReport = { accepted: [], rejected: [] };
    const pending = pendingOf(envelopes, { notBefore, nowMs }, attributes, report);
    for (const batch of toBatches(pending)) await sendBatch(sender, batch, report);
    report.rejected.sort((a, b) => a.index - b.index);
    return report;
  };

  return {
    submitBatch,
    async submit(envelope: unknown, submitOptions?: SubmitOptions): Promise<AcceptedEvent> {
      return acceptedOrThrow(await submitBatch([envelope], submitOptions), queueUrl);
    },
  };
};

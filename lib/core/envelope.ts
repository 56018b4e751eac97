import * as z from "zod";
import { errorMessage, type InputProblem } from "./errors.js";
import { HTTP_URL_PATTERN, HTTP_URL_RULE, urlParserReads } from "./http-url.js";
import { checkParams, OrchestratorOnlyChecks } from "./orchestrator-only-checks.js";
import { PolicyFieldsSchema } from "./policy.js";
import { toProblems } from "./zod-problems.js";

/**
 * SQS's limit on one message, body and attributes together (raised to 1 MiB in 2025). Real SQS
 * enforces it; the emulators do not, so Ricochet checks it itself.
 */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
/**
 * Room kept below SQS's limit for what Ricochet wraps around an envelope: the dead-letter copy
 * carries the whole envelope plus the failure summary and its attributes, and must still fit.
 */
export const ENVELOPE_HEADROOM_BYTES = 8 * 1024;
/** The largest envelope accepted, serialized: what leaves room to dead-letter it whole. */
export const MAX_ENVELOPE_BYTES = MAX_MESSAGE_BYTES - ENVELOPE_HEADROOM_BYTES;
/** Deepest nesting accepted in a payload; deeper documents are hostile, not business data. */
export const MAX_PAYLOAD_DEPTH = 64;
export const MAX_EVENT_ID_LENGTH = 128;
export const MAX_TIMEOUT_MS = 300_000;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** The envelope format this release reads and writes. */
export const ENVELOPE_VERSION = 1;

/** An envelope's instants (`deadline`, `notBefore`): ISO 8601 date-times naming their zone. */
export const IsoInstantSchema = z.iso.datetime({
  offset: true,
  error: "must be an ISO 8601 date-time with a time zone",
});

/** The punctuation an event id may hold besides letters and digits (`-` last: in a class, literal). */
const EVENT_ID_PUNCTUATION = [".", "_", ":", "@", "/", "+", "=", "-"] as const;

/**
 * Event ids are letters, digits and a few punctuation marks, so that they are safe in logs,
 * headers and DynamoDB keys and cannot hide look-alike characters (a Cyrillic "а" in an
 * otherwise Latin id) or spaces.
 */
const EVENT_ID_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9${EVENT_ID_PUNCTUATION.join("")}]*$`);

/** The event id rule in words: the problem an envelope gets, and the README's sentence. */
export const EVENT_ID_RULE = `1–${MAX_EVENT_ID_LENGTH} characters: letters, digits and ${EVENT_ID_PUNCTUATION.join(" ")}, starting with a letter or digit`;

export const EventIdSchema = z
  .string()
  // An empty id would also fail the pattern; one problem says it better than two.
  .min(1, { error: "must not be empty", abort: true })
  .max(MAX_EVENT_ID_LENGTH, `must be at most ${MAX_EVENT_ID_LENGTH} characters`)
  .regex(EVENT_ID_PATTERN, `must be ${EVENT_ID_RULE}`)
  .describe("Stable identity of the event; sent as Idempotency-Key on every attempt.");

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers Ricochet sets itself or that the HTTP stack owns; a producer may not supply them. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  "idempotency-key",
  "ricochet-attempt",
  "ricochet-event-id",
  "ricochet-replay",
  "ricochet-signature",
  "ricochet-timestamp",
  "webhook-id",
  "webhook-signature",
  "webhook-timestamp",
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
]);

/*
 * The header values Node sends, as `http.validateHeaderValue` judges them: horizontal tab, 0x20–0x7E
 * and 0x80–0xFF (sent as Latin-1). Any other character — CR or LF (header injection), another
 * control character, or one above U+00FF such as "€" — makes every attempt fail before sending, as
 * a retryable error that burns the whole budget; refused here, the envelope fails once, up front.
 */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Matches `word` in any case, written so that every JSON Schema validator runs it (no flags). */
const anyCase = (word: string): string =>
  [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join("");

/** Most headers an HTTP target may carry. */
const MAX_HEADERS = 50;

const HeadersSchema = z
  .record(
    z
      .string()
      .regex(HEADER_NAME, "is not a valid HTTP header name")
      .refine(
        (name) => !RESERVED_HEADERS.has(name.toLowerCase()),
        "is set by Ricochet and may not be supplied",
      )
      .meta({ not: { pattern: `^(?:${[...RESERVED_HEADERS].map(anyCase).join("|")})$` } }),
    z
      .string()
      .max(8192, "must be at most 8192 characters")
      .regex(
        HEADER_VALUE,
        "must contain only tab, printable ASCII and U+0080–U+00FF, the characters HTTP can send",
      ),
  )
  .refine(
    (headers) => Object.keys(headers).length <= MAX_HEADERS,
    `must have at most ${MAX_HEADERS} headers`,
  )
  .meta({ maxProperties: MAX_HEADERS });

/** Names a group of targets that share one circuit breaker and one set of limits. */
export const TargetGroupSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
    "must be 1–64 letters, digits and . _ : -, starting with a letter or digit",
  )
  .describe(
    "Shares one circuit breaker and one set of per-target limits among targets, e.g. a tenant's several URLs. Default: the URL's origin, or the Lambda function.",
  );

const HttpTargetSchema = z.strictObject({
  type: z.literal("http"),
  url: z
    .string()
    .max(2048, "must be at most 2048 characters")
    .regex(HTTP_URL_PATTERN, { error: HTTP_URL_RULE, abort: true })
    .refine(urlParserReads, {
      error: "has a host no URL parser reads (a number that is no IPv4 address, bad Punycode)",
      params: checkParams(OrchestratorOnlyChecks.URL_HOST),
    })
    .meta({ format: "uri" }),
  method: z.enum(["POST", "PUT", "PATCH", "DELETE", "GET"]).optional().describe("Default POST."),
  headers: HeadersSchema.optional(),
  timeoutMs: z
    .int("must be a whole number of milliseconds")
    .min(100, "must be at least 100")
    .max(MAX_TIMEOUT_MS, `must be at most ${MAX_TIMEOUT_MS}`)
    .optional()
    .describe(`Per-attempt timeout; default ${DEFAULT_TIMEOUT_MS}.`),
  group: TargetGroupSchema.optional(),
});

const LAMBDA_FUNCTION =
  /^(arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:\d{12}:function:)?[a-zA-Z0-9_-]{1,64}(:(\$LATEST|[a-zA-Z0-9_-]{1,128}))?$/;

const LambdaTargetSchema = z.strictObject({
  type: z.literal("lambda"),
  functionName: z
    .string()
    .max(170)
    .regex(LAMBDA_FUNCTION, "must be a Lambda function name, alias or ARN"),
  group: TargetGroupSchema.optional(),
});

const TargetSchema = z.discriminatedUnion("type", [HttpTargetSchema, LambdaTargetSchema], {
  error: (issue) =>
    issue.code === "invalid_union"
      ? 'must be an object whose "type" is "http" or "lambda"'
      : undefined,
});

/** Depth of a JSON value, measured without recursion so hostile nesting cannot blow the stack. */
const jsonDepth = (value: unknown): number => {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_PAYLOAD_DEPTH) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
};

export const EnvelopeSchema = z
  .strictObject({
    version: z.literal(ENVELOPE_VERSION).optional().describe("Envelope format version; default 1."),
    eventId: EventIdSchema,
    target: TargetSchema,
    payload: z
      .unknown()
      .refine((p) => p !== undefined, "is required (use null for no payload)")
      .refine((p) => jsonDepth(p) <= MAX_PAYLOAD_DEPTH, {
        error: `must nest at most ${MAX_PAYLOAD_DEPTH} levels deep`,
        params: checkParams(OrchestratorOnlyChecks.PAYLOAD_DEPTH),
      })
      .describe("Any JSON value; sent as the request body or the Lambda event."),
    policy: PolicyFieldsSchema.optional().describe("Overrides of the deployment's retry policy."),
    deadline: IsoInstantSchema.optional().describe("No attempt starts after this instant."),
    notBefore: IsoInstantSchema.optional().describe(
      "No attempt starts before this instant: the first attempt is scheduled for it (at most 14 days ahead, and not after deadline).",
    ),
  })
  // Checked here, not only by the orchestrator, so a producer's client refuses it before sending.
  .refine(
    (e) =>
      e.notBefore === undefined ||
      e.deadline === undefined ||
      Date.parse(e.notBefore) <= Date.parse(e.deadline),
    {
      path: ["notBefore"],
      error: "must not be after deadline: no attempt could ever start",
      params: checkParams(OrchestratorOnlyChecks.NOT_BEFORE_AFTER_DEADLINE),
    },
  )
  .describe("A Ricochet event: what to deliver, where, and how to retry it.");

export type Envelope = z.infer<typeof EnvelopeSchema>;
export type HttpTarget = z.infer<typeof HttpTargetSchema>;
export type LambdaTarget = z.infer<typeof LambdaTargetSchema>;
export type Target = z.infer<typeof TargetSchema>;

/** The result of reading a message body as an envelope. */
export type EnvelopeParseResult =
  | { readonly ok: true; readonly envelope: Envelope }
  | {
      readonly ok: false;
      readonly problems: readonly InputProblem[];
      /** The event id, when one could be read safely despite the other problems. */
      readonly eventId?: string | undefined;
    };

/** The value's `eventId` when it is a valid one, whatever else is wrong with the value. */
export const readableEventId = (value: unknown): string | undefined => {
  if (value === null || typeof value !== "object") return undefined;
  const id = (value as { eventId?: unknown }).eventId;
  return EventIdSchema.safeParse(id).success ? (id as string) : undefined;
};

/** Validates an already-parsed value as an envelope, reporting every problem with its path. */
export const validateEnvelope = (value: unknown): EnvelopeParseResult => {
  const parsed = EnvelopeSchema.safeParse(value);
  if (parsed.success) return { ok: true, envelope: parsed.data };
  return { ok: false, problems: toProblems(parsed.error), eventId: readableEventId(value) };
};

/** The problem reported for an envelope over {@link MAX_ENVELOPE_BYTES}. */
export const envelopeTooLarge = (bytes: number): string =>
  `message is ${bytes} bytes; the limit is ${MAX_ENVELOPE_BYTES} (SQS's 1 MiB less room to dead-letter it whole)`;

/** UTF-8 size of a string, as SQS counts it. */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * Reads a raw SQS message body as an envelope. Never throws: not-JSON, oversize and
 * invalid-shape bodies all come back as problems, so no message is lost to an exception.
 */
export const parseEnvelope = (body: string): EnvelopeParseResult => {
  const size = utf8Bytes(body);
  if (size > MAX_ENVELOPE_BYTES) {
    return { ok: false, problems: [{ path: "", message: envelopeTooLarge(size) }] };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const detail = errorMessage(error);
    return { ok: false, problems: [{ path: "", message: `not valid JSON: ${detail}` }] };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, problems: [{ path: "", message: "must be a JSON object" }] };
  }
  return validateEnvelope(value);
};

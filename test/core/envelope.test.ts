import { validateHeaderValue } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ENVELOPE_HEADROOM_BYTES,
  type EnvelopeParseResult,
  envelopeTooLarge,
  MAX_ENVELOPE_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_PAYLOAD_DEPTH,
  parseEnvelope,
  RESERVED_HEADERS,
  validateEnvelope,
} from "../../lib/core/envelope.js";
import type { InputProblem } from "../../lib/core/errors.js";
import { OrchestratorOnlyChecks } from "../../lib/core/orchestrator-only-checks.js";
import { aLambdaTarget, anEnvelope, anHttpTarget } from "../support/factories.js";

const problemsOf = (result: EnvelopeParseResult): readonly InputProblem[] => {
  if (result.ok) throw new Error("expected the envelope to be rejected");
  return result.problems;
};

/** An otherwise valid envelope (as plain JSON) with some fields replaced or removed. */
const envelopeWith = (fields: Record<string, unknown>): Record<string, unknown> => {
  const envelope: Record<string, unknown> = { ...anEnvelope({ eventId: "evt-1" }), ...fields };
  for (const [key, value] of Object.entries(fields)) if (value === undefined) delete envelope[key];
  return envelope;
};

/** What every refused header value is told. */
const HEADER_VALUE_PROBLEM = "must contain only tab, printable ASCII";

/** A payload nested `depth` levels deep: `{"a":{"a":…}}`. */
const nested = (depth: number): unknown => {
  let value: unknown = null;
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
};

describe("validateEnvelope", () => {
  it.each<[string, Record<string, unknown>, [path: string, fragment: string][]]>([
    [
      "everything missing",
      { eventId: undefined, target: undefined, payload: undefined },
      [
        ["eventId", "expected string"],
        ["target", "expected object"],
        ["payload", "is required (use null for no payload)"],
      ],
    ],
    ["an empty event id", { eventId: "" }, [["eventId", "must not be empty"]]],
    ["a numeric event id", { eventId: 42 }, [["eventId", "expected string"]]],
    [
      "an event id of 129 characters",
      { eventId: "a".repeat(129) },
      [["eventId", "at most 128 characters"]],
    ],
    [
      "an event id with a space",
      { eventId: "order 1" },
      [["eventId", "letters, digits and . _ : @ / + = -"]],
    ],
    // A Cyrillic "а" (U+0430) that looks like a Latin "a".
    [
      "a look-alike Cyrillic event id",
      { eventId: "ord\u0430r-1" },
      [["eventId", "letters, digits and . _ : @ / + = -"]],
    ],
    [
      "a full-width digit in the event id",
      { eventId: "order-\uff11" },
      [["eventId", "letters, digits and . _ : @ / + = -"]],
    ],
    [
      "an event id starting with punctuation",
      { eventId: "-order" },
      [["eventId", "letters, digits and . _ : @ / + = -"]],
    ],
    [
      "an unknown target type",
      { target: { type: "smtp" } },
      [["target.type", 'whose "type" is "http" or "lambda"']],
    ],
    ["a target that is a string", { target: "https://x.example" }, [["target", "expected object"]]],
    [
      "an ftp URL",
      { target: anHttpTarget({ url: "ftp://x.example/f" }) },
      [["target.url", "absolute http:// or https:// URL"]],
    ],
    [
      "a relative URL",
      { target: anHttpTarget({ url: "/hooks" }) },
      [["target.url", "absolute http:// or https:// URL"]],
    ],
    [
      "an unsupported method",
      { target: { ...anHttpTarget(), method: "TRACE" } },
      [["target.method", "expected one of"]],
    ],
    [
      "a timeout below 100 ms",
      { target: anHttpTarget({ timeoutMs: 50 }) },
      [["target.timeoutMs", "must be at least 100"]],
    ],
    [
      "a timeout above 300 s",
      { target: anHttpTarget({ timeoutMs: 300_001 }) },
      [["target.timeoutMs", "must be at most 300000"]],
    ],
    [
      "a fractional timeout",
      { target: anHttpTarget({ timeoutMs: 150.5 }) },
      [["target.timeoutMs", "whole number of milliseconds"]],
    ],
    [
      "a field of the other target type",
      { target: { ...aLambdaTarget(), url: "https://x.example" } },
      [["target.url", "is not a recognized field"]],
    ],
    [
      "a bad Lambda name",
      { target: aLambdaTarget({ functionName: "my function" }) },
      [["target.functionName", "Lambda function name, alias or ARN"]],
    ],
    [
      "a header name with a space",
      { target: anHttpTarget({ headers: { "X Trace": "1" } }) },
      [["target.headers.X Trace", "is not a valid HTTP header name"]],
    ],
    [
      "a header value with a newline (header injection)",
      { target: anHttpTarget({ headers: { "X-Trace": "1\r\nX-Evil: 1" } }) },
      [["target.headers.X-Trace", HEADER_VALUE_PROBLEM]],
    ],
    [
      "a header value with a character above U+00FF",
      { target: anHttpTarget({ headers: { "X-Price": "5 €" } }) },
      [["target.headers.X-Price", HEADER_VALUE_PROBLEM]],
    ],
    [
      "a header value with a control character",
      { target: anHttpTarget({ headers: { "X-Trace": "a\u007fb" } }) },
      [["target.headers.X-Trace", HEADER_VALUE_PROBLEM]],
    ],
    [
      "51 headers",
      {
        target: anHttpTarget({
          headers: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, "v"])),
        }),
      },
      [["target.headers", "at most 50 headers"]],
    ],
    [
      "an unknown top-level field",
      { priority: "high" },
      [["priority", "is not a recognized field"]],
    ],
    ["version 2", { version: 2 }, [["version", "expected 1"]]],
    [
      "a deadline without a time zone",
      { deadline: "2030-01-01T00:00:00" },
      [["deadline", "ISO 8601 date-time with a time zone"]],
    ],
    [
      "a deadline that is a date only",
      { deadline: "2030-01-01" },
      [["deadline", "ISO 8601 date-time with a time zone"]],
    ],
    [
      "a notBefore without a time zone",
      { notBefore: "2030-01-01T00:00:00" },
      [["notBefore", "ISO 8601 date-time with a time zone"]],
    ],
    [
      "a notBefore after the deadline, when no attempt could ever start",
      { notBefore: "2030-01-01T00:00:01Z", deadline: "2030-01-01T00:00:00Z" },
      [["notBefore", "must not be after deadline"]],
    ],
    [
      "a notBefore after a deadline given in another zone",
      { notBefore: "2030-01-01T01:30:00+02:00", deadline: "2029-12-31T23:00:00Z" },
      [["notBefore", "must not be after deadline"]],
    ],
    [
      "a policy with bad fields",
      { policy: { jitter: "random", maxAttempts: 0, retries: 3 } },
      [
        ["policy.maxAttempts", "must be at least 1"],
        ["policy.jitter", "expected one of"],
        ["policy.retries", "is not a recognized field"],
      ],
    ],
    [
      "a payload nested too deep",
      { payload: nested(MAX_PAYLOAD_DEPTH + 1) },
      [["payload", `must nest at most ${MAX_PAYLOAD_DEPTH} levels deep`]],
    ],
    [
      "several problems at once",
      { eventId: "", target: anHttpTarget({ url: "nope", timeoutMs: 1 }), deadline: "soon" },
      [
        ["eventId", "must not be empty"],
        ["target.url", "absolute http:// or https:// URL"],
        ["target.timeoutMs", "must be at least 100"],
        ["deadline", "ISO 8601 date-time"],
      ],
    ],
  ])("rejects %s, reporting every problem at its path", (_, fields, expected) => {
    const problems = problemsOf(validateEnvelope(envelopeWith(fields)));
    expect(problems).toHaveLength(expected.length);
    for (const [path, fragment] of expected) {
      expect(problems).toContainEqual(
        expect.objectContaining({ path, message: expect.stringContaining(fragment) }),
      );
    }
  });

  it.each([...RESERVED_HEADERS].flatMap((name) => [name, name.toUpperCase()]))(
    "rejects the reserved header %s, whatever its case",
    (name) => {
      const problems = problemsOf(
        validateEnvelope(envelopeWith({ target: anHttpTarget({ headers: { [name]: "x" } }) })),
      );
      expect(problems).toEqual([
        { path: `target.headers.${name}`, message: "is set by Ricochet and may not be supplied" },
      ]);
    },
  );

  it("still reads the event id of an otherwise invalid envelope, so it can be recorded", () => {
    const result = validateEnvelope(envelopeWith({ eventId: "evt-9", target: undefined }));
    expect(result).toMatchObject({ ok: false, eventId: "evt-9" });
  });

  it("gives no event id when the id itself is unsafe", () => {
    const result = validateEnvelope(envelopeWith({ eventId: "evt\u0430" }));
    expect(result.ok === false && result.eventId).toBeUndefined();
  });

  it("accepts a payload nested exactly to the limit, and null as a payload", () => {
    expect(validateEnvelope(envelopeWith({ payload: nested(MAX_PAYLOAD_DEPTH) })).ok).toBe(true);
    expect(validateEnvelope(envelopeWith({ payload: null })).ok).toBe(true);
  });
});

describe("header values", () => {
  const nodeSends = (value: string): boolean => {
    try {
      validateHeaderValue("X-Value", value);
      return true;
    } catch {
      return false;
    }
  };

  /** Mostly sendable characters, with every kind Node refuses mixed in. */
  const aHeaderCharacter = fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 0x20, max: 0xff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x100, max: 0xffff }) },
    { weight: 1, arbitrary: fc.constantFrom(0x09, 0x7f, 0x20ac, 0xd83d, 0xdc00) },
  );

  it("accepts exactly the values Node's http.validateHeaderValue lets through", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: aHeaderCharacter.map((code) => String.fromCharCode(code)) }),
          fc.string({ unit: "binary", maxLength: 8 }),
        ),
        (value) => {
          const target = anHttpTarget({ headers: { "X-Value": value } });
          expect(validateEnvelope(envelopeWith({ target })).ok).toBe(nodeSends(value));
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ["a tab", "a\tb"],
    ["Latin-1", "Grüße"],
    ["0xFF", "\u00ff"],
    ["an empty value", ""],
  ])("accepts %s, which Node sends", (_, value) => {
    expect(nodeSends(value)).toBe(true);
    const target = anHttpTarget({ headers: { "X-Value": value } });
    expect(validateEnvelope(envelopeWith({ target })).ok).toBe(true);
  });
});

describe("parseEnvelope", () => {
  it.each([
    ["not JSON", "{eventId: 1}", "not valid JSON"],
    ["an empty body", "", "not valid JSON"],
    ["a JSON array", "[1, 2]", "must be a JSON object"],
    ["a JSON string", '"evt-1"', "must be a JSON object"],
    ["JSON null", "null", "must be a JSON object"],
  ])("rejects %s with one problem at the root", (_, body, fragment) => {
    expect(problemsOf(parseEnvelope(body))).toEqual([
      { path: "", message: expect.stringContaining(fragment) },
    ]);
  });

  it("rejects a body over the envelope limit by its UTF-8 size, before parsing it", () => {
    // "é" is two bytes in UTF-8: the body is under the limit in characters but over it in bytes.
    const body = JSON.stringify(anEnvelope({ payload: "é".repeat(MAX_ENVELOPE_BYTES / 2) }));
    expect(body.length).toBeLessThan(MAX_ENVELOPE_BYTES + 200);
    expect(problemsOf(parseEnvelope(body))).toEqual([
      { path: "", message: envelopeTooLarge(Buffer.byteLength(body)) },
    ]);
  });

  it("accepts a body of exactly the envelope limit, which leaves room under SQS's 1 MiB", () => {
    const skeleton = JSON.stringify(anEnvelope({ payload: "" }));
    const body = JSON.stringify(
      anEnvelope({ payload: "x".repeat(MAX_ENVELOPE_BYTES - skeleton.length) }),
    );
    // The two envelopes differ only in their payload and event id, which has a fixed length.
    expect(Buffer.byteLength(body)).toBe(MAX_ENVELOPE_BYTES);
    expect(parseEnvelope(body).ok).toBe(true);
    expect(MAX_ENVELOPE_BYTES + ENVELOPE_HEADROOM_BYTES).toBe(MAX_MESSAGE_BYTES);
  });

  it("survives hostile nesting without throwing", () => {
    const depth = 100_000;
    const body = `{"eventId":"evt-1","target":{"type":"lambda","functionName":"f"},"payload":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    expect(problemsOf(parseEnvelope(body))).toEqual([
      {
        path: "payload",
        message: `must nest at most ${MAX_PAYLOAD_DEPTH} levels deep`,
        check: OrchestratorOnlyChecks.PAYLOAD_DEPTH.id,
      },
    ]);
  });

  it.each([
    [
      "an HTTP target with every field",
      anEnvelope({
        version: 1,
        target: anHttpTarget({ method: "PUT", headers: { "X-Trace": "t-1" }, timeoutMs: 5000 }),
        policy: { maxAttempts: 3, jitter: "equal", retryOnStatus: [404, "timeout"] },
        deadline: "2030-01-01T00:00:00+02:00",
        notBefore: "2029-12-31T22:00:00Z",
      }),
    ],
    [
      "a Lambda target by ARN",
      anEnvelope({
        target: aLambdaTarget({
          functionName: "arn:aws:lambda:eu-west-1:123456789012:function:receiver:live",
        }),
        payload: [1, "two", { three: 3 }],
      }),
    ],
    ["a minimal envelope", anEnvelope()],
  ])("round-trips %s unchanged", (_, envelope) => {
    const result = parseEnvelope(JSON.stringify(envelope));
    expect(result).toEqual({ ok: true, envelope });
  });
});

import fc from "fast-check";
import { MAX_PAYLOAD_DEPTH, RESERVED_HEADERS } from "../../lib/core/envelope.js";
import { ErrorCategory } from "../../lib/core/policy.js";

/*
 * Envelopes to judge, as fast-check generates them: valid ones (as the orchestrator judges them)
 * and ones with one field changed to a value near or beyond its rule, including the URL, header,
 * event id, policy and date edges where a JSON Schema and the validator may part.
 */

/** An envelope as a producer writes it: any JSON object. */
export type Doc = Record<string, unknown>;

const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const fromChars = (chars: string, min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...chars), minLength: min, maxLength: max });

const anEventId = fc
  .tuple(fromChars(letters, 1, 1), fromChars(`${letters}._:@/+=-`, 0, 127))
  .map(([first, rest]) => first + rest);

const aUrl = fc.webUrl({
  validSchemes: ["http", "https", "HTTPS"],
  authoritySettings: {
    withIPv4: true,
    withIPv6: true,
    withIPv4Extended: true,
    withUserInfo: true,
    withPort: true,
  },
  withQueryParameters: true,
  withFragments: true,
});

const aHeaderName = fromChars(`${letters}!#$%&'*+.^_\`|~-`, 1, 20).filter(
  (name) => !RESERVED_HEADERS.has(name.toLowerCase()),
);
const aHeaderValue = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    fc.constantFrom("\t", "é", "\u00ff"),
  ),
  maxLength: 40,
});

const anInstant = fc
  .tuple(
    fc.date({ min: new Date("2000-01-01"), max: new Date("2099-12-31"), noInvalidDate: true }),
    fc.constantFrom("Z", "+02:00", "-11:30", "+00:00"),
    fc.boolean(),
  )
  .map(([date, zone, millis]) => {
    const iso = date.toISOString();
    return `${millis ? iso.slice(0, -1) : iso.slice(0, 19)}${zone}`;
  });

const anHttpTarget = fc.record(
  {
    type: fc.constant("http"),
    url: aUrl,
    method: fc.constantFrom("POST", "PUT", "PATCH", "DELETE", "GET"),
    headers: fc.dictionary(aHeaderName, aHeaderValue, { maxKeys: 5 }),
    timeoutMs: fc.integer({ min: 100, max: 300_000 }),
    group: fc
      .tuple(fromChars(letters, 1, 1), fromChars(`${letters}._:-`, 0, 63))
      .map(([a, b]) => a + b),
  },
  { requiredKeys: ["type", "url"] },
);

const aLambdaTarget = fc.record({
  type: fc.constant("lambda"),
  functionName: fc.oneof(
    fromChars(`${letters}_-`, 1, 64),
    fc
      .tuple(fromChars(`${letters}_-`, 1, 64), fromChars(`${letters}_-`, 1, 20))
      .map(([name, alias]) => `${name}:${alias}`),
    fromChars(`${letters}_-`, 1, 64).map(
      (n) => `arn:aws:lambda:eu-west-1:123456789012:function:${n}`,
    ),
  ),
});

const aStatusOrCategory = fc.oneof(
  fc.integer({ min: 100, max: 599 }),
  fc.constantFrom(...Object.values(ErrorCategory)),
);

const aPolicy = fc.record(
  {
    maxAttempts: fc.integer({ min: 1, max: 100 }),
    baseDelaySeconds: fc.integer({ min: 0, max: 900 }),
    multiplier: fc.double({ min: 1, max: 10, noNaN: true }),
    jitter: fc.constantFrom("full", "equal", "decorrelated", "none"),
    deadlineSeconds: fc.integer({ min: 1, max: 1_209_600 }),
    maxRetryAfterSeconds: fc.integer({ min: 0, max: 1_209_600 }),
    retryOnStatus: fc.array(aStatusOrCategory, { maxLength: 3 }),
    noRetryErrorTypes: fc.array(fromChars(`${letters}.`, 1, 30), { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

/** A valid envelope (as the orchestrator judges it), with any optional field present or not. */
export const anEnvelopeDocument: fc.Arbitrary<Doc> = fc.record(
  {
    version: fc.constant(1),
    eventId: anEventId,
    target: fc.oneof({ weight: 3, arbitrary: anHttpTarget }, aLambdaTarget),
    payload: fc.jsonValue({ maxDepth: 4 }),
    policy: aPolicy,
    deadline: fc.constant("2099-12-31T23:59:59Z"),
    notBefore: fc.constant("2030-01-01T00:00:00+01:00"),
  },
  { requiredKeys: ["eventId", "target", "payload"] },
);

const nested = (depth: number): unknown => (depth <= 1 ? {} : { a: nested(depth - 1) });

/** Strings a near-valid field may be set to: anything, and the shapes that break rules. */
const aNearString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.constantFrom("", " ", "\n", "€", "a b", "é", "\u0430", "\u0000", "x".repeat(300)),
);

const withHeaders = (doc: Doc, headers: unknown): Doc => ({
  ...doc,
  target: { type: "http", url: "https://hooks.example.com/h", headers },
});

/** One field of a valid envelope changed, to a value near or beyond its rule. */
export const aMutation: fc.Arbitrary<(doc: Doc) => Doc> = fc.oneof(
  // URLs: other schemes, no URL at all, bad hosts and ports, characters outside RFC 3986.
  fc
    .oneof(
      fc.constantFrom(
        "ftp://127.0.0.1/x",
        "not a url",
        "http:example.com",
        "http:/example.com/x",
        "http:///x",
        "http://",
        "http://exa mple.com/",
        "http://example.com/a b",
        "http://example.com/ü",
        "http://bücher.example/",
        "http://example.com\\x",
        " http://example.com/",
        "http://example.com/\n",
        "http://example.com:65536/",
        "http://example.com:65535/",
        "http://example.com:/",
        "http://[::1]:8080/x",
        "http://[::g]/",
        "http://[1:2:3:4:5:6:7:8:9]/",
        "http://[::ffff:10.0.0.7]/",
        "http://a.1/",
        "http://10.0.0.256/",
        "http://167772167/",
        "http://0x7f.1/",
        "http://xn--zz/",
        "http://user:pa%20ss@example.com/",
        "http://example.com/%zz",
        "http://example.com/{x}",
        "http://example.com/?q=a|b",
        "http://example.com./x",
        "javascript:alert(1)",
        "mailto:a@example.com",
        `https://example.com/${"a".repeat(2040)}`,
      ),
      aNearString,
      fc.webUrl({ validSchemes: ["ftp", "ws", "file", "http"] }),
    )
    .map((url) => (doc: Doc) => ({ ...doc, target: { type: "http", url } })),
  // Header names and values with forbidden characters, reserved names in any case, too many.
  fc
    .tuple(
      fc.oneof(aNearString, fc.constantFrom(...RESERVED_HEADERS, "HoSt", "X-Ok")),
      aHeaderValue,
    )
    .map(
      ([name, value]) =>
        (doc: Doc) =>
          withHeaders(doc, { [name]: value }),
    ),
  aNearString.map((value) => (doc: Doc) => withHeaders(doc, { "X-A": value })),
  fc
    .integer({ min: 48, max: 52 })
    .map(
      (n) => (doc: Doc) =>
        withHeaders(doc, Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-${i}`, "1"]))),
    ),
  fc
    .constantFrom(8191, 8192, 8193)
    .map((n) => (doc: Doc) => withHeaders(doc, { "X-A": "é".repeat(n) })),
  // Event ids: any characters, the length edges, a leading punctuation mark.
  fc
    .oneof(
      aNearString,
      fc.constantFrom(
        "nc order 10",
        "-a",
        ".a",
        "a".repeat(128),
        "a".repeat(129),
        "a:b@c/d+e=f-g_h",
      ),
      fc.integer({ min: 0, max: 200 }),
    )
    .map((eventId) => (doc: Doc) => ({ ...doc, eventId })),
  // Timeouts and methods out of range or of the wrong type.
  fc
    .oneof(
      fc.constantFrom(99, 100, 300_000, 300_001, 100.5, -1, 0, "1000", null),
      fc.double({ noNaN: true }),
    )
    .map((timeoutMs) => (doc: Doc) => ({
      ...doc,
      target: { type: "http", url: "https://hooks.example.com/h", timeoutMs },
    })),
  fc.constantFrom("post", "TRACE", "", 1).map((method) => (doc: Doc) => ({
    ...doc,
    target: { type: "http", url: "https://hooks.example.com/h", method },
  })),
  // Instants: no zone, other separators, impossible dates, leap seconds, not a date.
  fc
    .tuple(
      fc.constantFrom("deadline", "notBefore"),
      fc.oneof(
        aNearString,
        anInstant,
        fc.constantFrom(
          "2030-01-01T00:00:00",
          "2030-01-01t00:00:00z",
          "2030-01-01 00:00:00Z",
          "2030-02-29T00:00:00Z",
          "2032-02-29T00:00:00Z",
          "2030-04-31T00:00:00Z",
          "2030-12-31T23:59:60Z",
          "2030-01-01T24:00:00Z",
          "2030-01-01T00:00:00+2400",
          "2030-01-01T00:00:00+02",
          "2030-01-01",
          "\u0662\u0660\u0663\u0660-01-01T00:00:00Z",
          1_893_456_000,
        ),
      ),
    )
    .map(([field, value]) => (doc: Doc) => ({ ...doc, [field]: value })),
  fc.tuple(anInstant, anInstant).map(([notBefore, deadline]) => (doc: Doc) => ({
    ...doc,
    notBefore,
    deadline,
  })),
  // Payloads: missing, and nested around the limit.
  fc
    .integer({ min: MAX_PAYLOAD_DEPTH - 1, max: MAX_PAYLOAD_DEPTH + 2 })
    .map((depth) => (doc: Doc) => ({ ...doc, payload: nested(depth) })),
  fc.constant((doc: Doc) => {
    const { payload: _, ...rest } = doc;
    return rest;
  }),
  // Unknown fields anywhere, other versions, other target types.
  fc
    .tuple(fc.constantFrom("top", "target", "policy"), fc.string({ minLength: 1, maxLength: 8 }))
    .map(([where, key]) => (doc: Doc) => {
      if (where === "top") return { ...doc, [key]: 1 };
      if (where === "policy") return { ...doc, policy: { [key]: 1 } };
      return { ...doc, target: { type: "http", url: "https://h.example/", [key]: 1 } };
    }),
  fc.constantFrom(0, 2, "1", 1.5, null).map((version) => (doc: Doc) => ({ ...doc, version })),
  fc
    .oneof(
      fc.constantFrom(
        { type: "smtp" },
        { type: "lambda", functionName: "f", url: "https://x.example/" },
        { type: "lambda", functionName: "has space" },
        { type: "lambda", functionName: "arn:aws:lambda:eu-west-1:12345:function:f" },
        // Arabic-Indic digits, which Python's \d reads as digits.
        {
          type: "lambda",
          functionName:
            "arn:aws:lambda:eu-west-1:\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669\u0660\u0661\u0662:function:f",
        },
        { type: "http", url: "https://x.example/", group: "-bad" },
        { type: "http", url: "https://x.example/", group: "g".repeat(65) },
        { type: "http" },
        null,
        "https://x.example/",
      ),
    )
    .map((target) => (doc: Doc) => ({ ...doc, target })),
  // Policies: values out of range, fields inconsistent with each other or the deployment's.
  fc
    .oneof(
      fc.record(
        {
          maxAttempts: fc.constantFrom(0, 1, 100, 101, 2.5, "3"),
          baseDelaySeconds: fc.constantFrom(-1, 0, 900, 901, 1_209_601),
          maxDelaySeconds: fc.constantFrom(0, 10, 900, 1_209_600),
          multiplier: fc.constantFrom(0.5, 1, 10, 10.5),
          jitter: fc.constantFrom("full", "random"),
        },
        { requiredKeys: [] },
      ),
      fc.constantFrom(
        { retryOnStatus: [500], noRetryOnStatus: [500] },
        { retryOnStatus: [700] },
        { noRetryOnStatus: ["meteor"] },
        { noRetryErrorTypes: ["A"], retryOnlyErrorTypes: ["B"] },
        { noRetryErrorTypes: ["has space"] },
        // Where JavaScript's \s and Python's part: control characters, C1, BOM, Unicode spaces.
        { noRetryErrorTypes: ["E\u001c", "E\u0085"] },
        { noRetryErrorTypes: ["E\ufeff"] },
        { noRetryErrorTypes: ["E\u00a0"] },
        { noRetryErrorTypes: ["E\u3000x"] },
        { noRetryErrorTypes: ["E\u0000"] },
        { noRetryErrorTypes: ["E\u007f"] },
        { noRetryErrorTypes: ["E\u00e9.Ж"] },
        { noRetryErrorTypes: ["RicochetRetryError"] },
        { noRetryErrorTypes: ["\u{1F600}".repeat(200)] },
        { noRetryErrorTypes: ["\u{1F600}".repeat(257)] },
        { noRetryErrorTypes: ["é".repeat(256)] },
        { noRetryErrorTypes: [""] },
        { deadlineSeconds: 0 },
      ),
    )
    .map((policy) => (doc: Doc) => ({ ...doc, policy })),
  // A valid string with a line break at its end, which `$` lets through in Python and Java.
  fc
    .tuple(fc.constantFrom("\n", "\r", "\r\n", "\u2028"), fc.integer({ min: 0, max: 7 }))
    .map(([end, field]) => (doc: Doc) => {
      const http = (extra: Doc) => ({ type: "http", url: "https://h.example/", ...extra });
      const changes: Doc[] = [
        { eventId: `e-1${end}` },
        { target: http({ url: `https://h.example/${end}` }) },
        { target: http({ headers: { [`X-A${end}`]: "1" } }) },
        { target: http({ headers: { "X-A": `1${end}` } }) },
        { target: http({ group: `g${end}` }) },
        { target: { type: "lambda", functionName: `f${end}` } },
        { policy: { noRetryErrorTypes: [`E${end}`] } },
        { deadline: `2099-01-01T00:00:00Z${end}` },
      ];
      return { ...doc, ...changes[field] };
    }),
  // Not an object at all.
  fc.constantFrom<unknown>(null, [], "envelope", 1).map((value) => () => value as Doc),
);

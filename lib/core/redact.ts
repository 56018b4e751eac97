import type { Target } from "./envelope.js";

/*
 * Secrets must never reach a record, a log line or a dead-letter summary. Headers are redacted by
 * name; free text (error messages, body excerpts) by blanking the known secret values, since a
 * receiver may echo a token back in its error page.
 */

/** What a redacted value is replaced with. */
export const REDACTED = "[redacted]";

const SECRET_HEADER_NAMES: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
]);

const SECRET_NAME_PARTS = ["token", "secret", "password", "api-key", "signature"] as const;

/** Whether a header's value is a secret: a known credential header, or a name that says so. */
const isSecretHeaderName = (name: string, extraSecretNames: readonly string[] = []): boolean => {
  const lower = name.toLowerCase();
  return (
    SECRET_HEADER_NAMES.has(lower) ||
    SECRET_NAME_PARTS.some((part) => lower.includes(part)) ||
    extraSecretNames.some((extra) => extra.toLowerCase() === lower)
  );
};

/** A copy of `headers` with every secret header's value replaced by {@link REDACTED}. */
export const redactHeaders = (
  headers: Readonly<Record<string, string>>,
  extraSecretNames: readonly string[] = [],
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      isSecretHeaderName(name, extraSecretNames) ? REDACTED : value,
    ]),
  );

/**
 * The secret values among `headers`, to feed {@link redactText}. A credential with a scheme
 * (`Bearer abc`) also yields its bare token, which is what a receiver usually echoes.
 */
export const secretHeaderValues = (
  headers: Readonly<Record<string, string>> | undefined,
  extraSecretNames: readonly string[] = [],
): string[] => {
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!isSecretHeaderName(name, extraSecretNames)) continue;
    values.push(value);
    const token = /^[A-Za-z][A-Za-z0-9-]*\s+(\S+)$/.exec(value.trim())?.[1];
    if (token !== undefined) values.push(token);
  }
  return values;
};

/**
 * The secrets a target URL's userinfo (`https://user:pass@host/`) puts on the wire: the password,
 * and the base64 of `user:pass` that Node sends as `Authorization: Basic …`, which is what a
 * receiver echoes. Give the decoded username and password; no password, no secret.
 */
export const userinfoSecrets = (username: string, password: string): string[] =>
  password === ""
    ? []
    : [password, Buffer.from(`${username}:${password}`, "utf8").toString("base64")];

/** Options of {@link redactText}. */
export interface RedactTextOptions {
  /**
   * `text` is the start of something longer (a body read up to a bound): a secret its end cuts in
   * two is blanked too, since the part that was read is still part of the secret.
   */
  readonly cutShort?: boolean;
}

/**
 * The length of the longest prefix of `secret` that `text` ends with (the whole secret included),
 * in time linear in the secret's length (Knuth–Morris–Pratt), since header values run to 8 KiB.
 */
const danglingPrefixLength = (text: string, secret: string): number => {
  const fallback: number[] = [0];
  for (let i = 1, k = 0; i < secret.length; i += 1) {
    while (k > 0 && secret[i] !== secret[k]) k = fallback[k - 1] ?? 0;
    if (secret[i] === secret[k]) k += 1;
    fallback.push(k);
  }
  let matched = 0;
  for (let i = Math.max(0, text.length - secret.length); i < text.length; i += 1) {
    while (matched > 0 && (matched === secret.length || text[i] !== secret[matched])) {
      matched = fallback[matched - 1] ?? 0;
    }
    if (text[i] === secret[matched]) matched += 1;
  }
  return matched;
};

/**
 * Blanks every occurrence of every secret in `text`. Longer secrets go first so that a secret
 * containing another is blanked whole; empty strings are ignored. With `cutShort`, a secret cut by
 * the end of `text` is blanked as well.
 */
export const redactText = (
  text: string,
  secrets: readonly string[],
  { cutShort = false }: RedactTextOptions = {},
): string => {
  const ordered = [...new Set(secrets.map((secret) => secret.trim()))]
    .filter((secret) => secret !== "")
    .sort((a, b) => b.length - a.length);
  let result = text;
  for (const secret of ordered) result = result.split(secret).join(REDACTED);
  if (!cutShort) return result;
  const dangling = Math.max(0, ...ordered.map((secret) => danglingPrefixLength(result, secret)));
  return dangling === 0 ? result : `${result.slice(0, result.length - dangling)}${REDACTED}`;
};

/*
 * An HTTP credential quoted in free text: `Basic` or `Bearer` (any case) and a token of the
 * characters RFC 7235's token68 allows (`=` anywhere, not only as padding: blanking too much is
 * safe). A receiver that echoes the request's headers shows them whatever their header name, so
 * this catches credentials no configured name announces. Tokens shorter than 8 characters are
 * left alone: real credentials are longer, and prose such as `Bearer error="invalid_token"`
 * stays readable.
 */
const CREDENTIAL = /\b(basic|bearer)(\s+)[A-Za-z0-9\-._~+/=]{8,}/gi;

/** Blanks the token of every `Basic …` or `Bearer …` credential in `text`, keeping the scheme. */
export const redactCredentials = (text: string): string =>
  text.replace(CREDENTIAL, `$1$2${REDACTED}`);

/**
 * A secret-free, one-line summary of a target for records and logs: `http POST
 * https://host/path` (no userinfo, query or fragment, which often carry credentials) or
 * `lambda my-fn`.
 */
export const describeTarget = (target: Target): string => {
  if (target.type === "lambda") return `lambda ${target.functionName}`;
  return `http ${target.method ?? "POST"} ${secretFreeUrl(target.url) ?? "(invalid url)"}`;
};

/** A URL without userinfo, query or fragment (span attributes, summaries); undefined if invalid. */
export const secretFreeUrl = (text: string): string | undefined => {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return undefined;
  }
};

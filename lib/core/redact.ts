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
export const isSecretHeaderName = (
  name: string,
  extraSecretNames: readonly string[] = [],
): boolean => {
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
 * Blanks every occurrence of every secret in `text`. Longer secrets go first so that a secret
 * containing another is blanked whole; empty strings are ignored.
 */
export const redactText = (text: string, secrets: readonly string[]): string => {
  const ordered = [...new Set(secrets.map((secret) => secret.trim()))]
    .filter((secret) => secret !== "")
    .sort((a, b) => b.length - a.length);
  let result = text;
  for (const secret of ordered) result = result.split(secret).join(REDACTED);
  return result;
};

/**
 * A secret-free, one-line summary of a target for records and logs: `http POST
 * https://host/path` (no userinfo, query or fragment, which often carry credentials) or
 * `lambda my-fn`.
 */
export const describeTarget = (target: Target): string => {
  if (target.type === "lambda") return `lambda ${target.functionName}`;
  const method = target.method ?? "POST";
  try {
    const url = new URL(target.url);
    return `http ${method} ${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return `http ${method} (invalid url)`;
  }
};

import { canonicalHost } from "./address-policy.js";
import type { Target } from "./envelope.js";

/*
 * The key a target's circuit breaker and limits are kept under. Events whose targets share a key
 * share a breaker: one partner's host being down is one fact, however many paths it serves.
 * Groups of several such keys are declared by the operator (target-groups.ts).
 */

const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" };

/**
 * An HTTP target's origin, with the port always written: `https://api.example.com:443`. The host
 * is its canonical spelling (address-policy.ts): every spelling of one place is one key, so a
 * limit or group declared for a target holds however a producer writes its URL.
 */
const originOf = (url: string): string => {
  const parsed = new URL(url);
  const port = parsed.port === "" ? (DEFAULT_PORTS[parsed.protocol] ?? "") : parsed.port;
  const host = canonicalHost(parsed.hostname);
  return `${parsed.protocol}//${host.includes(":") ? `[${host}]` : host}:${port}`;
};

const QUALIFIED_ARN = /^(arn:[^:]+:lambda:[^:]+:\d{12}:function:[^:]+)(:[^:]+)?$/;

/** A Lambda function without its alias or version: all of them run on the same function. */
const functionOf = (functionName: string): string => {
  const arn = QUALIFIED_ARN.exec(functionName);
  if (arn !== null) return arn[1] ?? functionName;
  return functionName.split(":")[0] ?? functionName;
};

const GROUP_PREFIX = "group:";

/** The key a declared group's breaker and limits are kept under. */
export const groupKey = (group: string): string => `${GROUP_PREFIX}${group}`;

/** The group a key names, or undefined for a target's own key: the inverse of {@link groupKey}. */
export const groupOfKey = (key: string): string | undefined =>
  key.startsWith(GROUP_PREFIX) ? key.slice(GROUP_PREFIX.length) : undefined;

/**
 * The key of the target a record's summary (`describeTarget` in redact.ts) and declared group
 * give: no key is stored on records, since these give it (undefined for a summary that names no
 * target, such as an invalid envelope's). Tested against {@link naturalTargetKey} for every target.
 */
export const targetKeyOfRecord = (record: {
  readonly targetSummary?: string | undefined;
  readonly targetGroup?: string | undefined;
}): string | undefined => {
  if (record.targetGroup !== undefined) return groupKey(record.targetGroup);
  const summary = record.targetSummary ?? "";
  const lambda = /^lambda (\S+)$/.exec(summary);
  if (lambda !== null) return `lambda:${functionOf(lambda[1] ?? "")}`;
  const http = /^http \S+ (\S+)$/.exec(summary);
  if (http === null) return undefined;
  try {
    return `http:${originOf(http[1] ?? "")}`;
  } catch {
    return undefined;
  }
};

/**
 * The target's own key, before any declared group: the HTTP origin (scheme, host, port) or the
 * Lambda function (alias and version dropped). The envelope's `group` plays no part here.
 */
export const naturalTargetKey = (target: Target): string =>
  target.type === "http"
    ? `http:${originOf(target.url)}`
    : `lambda:${functionOf(target.functionName)}`;

/**
 * The key `key` would have if written as {@link naturalTargetKey} writes its target's, or
 * undefined when it names no target at all.
 */
export const naturalSpellingOf = (key: string): string | undefined => {
  const colon = key.indexOf(":");
  const kind = key.slice(0, colon);
  const rest = key.slice(colon + 1);
  try {
    switch (kind) {
      case "http":
        return naturalTargetKey({ type: "http", url: rest });
      case "lambda":
        return naturalTargetKey({ type: "lambda", functionName: rest });
      default:
        return undefined;
    }
  } catch {
    return undefined; // not a URL at all
  }
};

/**
 * A target as an operator types it: a key as `ricochet targets` prints it (or in another spelling
 * of its target: `http:http://localhost:8080`), or an HTTP URL, meaning its origin's key. Undefined for a URL that does not parse.
 */
export const targetKeyOfTyped = (typed: string): string | undefined => {
  if (!/^https?:\/\//i.test(typed)) return naturalSpellingOf(typed) ?? typed;
  try {
    return naturalTargetKey({ type: "http", url: typed });
  } catch {
    return undefined;
  }
};

import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { performance } from "node:perf_hooks";
import { StringDecoder } from "node:string_decoder";
import { createAddressPolicy } from "../../core/address-policy.js";
import { DEFAULT_TIMEOUT_MS, type Envelope, type HttpTarget } from "../../core/envelope.js";
import { errorMessage } from "../../core/errors.js";
import { type AttemptResult, storedExcerpt } from "../../core/outcome.js";
import { ErrorCategory } from "../../core/policy.js";
import type { DeliveryRequest, DeliveryTarget } from "../../core/ports.js";
import { secretHeaderValues, userinfoSecrets } from "../../core/redact.js";
import type { DeliverySigner } from "../../core/signing.js";
import { pinnedLookup, type Resolve, resolveSafeAddress, systemResolve } from "./address-policy.js";
import { notifySent } from "./notify-sent.js";

/** Options of {@link createHttpTarget}. */
export interface HttpTargetOptions {
  /**
   * Host names (`hooks.internal`, `*.internal`), IP addresses or CIDR ranges that may be reached
   * although they are internal (`RICOCHET_ALLOWED_TARGET_HOSTS`). Everything else that resolves
   * to a loopback, private, link-local or otherwise reserved address is refused.
   */
  readonly allowedHosts?: readonly string[];
  /** Adds signature headers over the exact body; omitted, requests go unsigned. */
  readonly signer?: DeliverySigner;
  /** DNS resolution; defaults to the system resolver. Tests inject a fake. */
  readonly resolve?: Resolve;
  readonly userAgent?: string;
  /** Bytes of the response body kept as an excerpt (default 512); the rest is never read. */
  readonly maxBodyExcerptBytes?: number;
  /** Extra header names whose values are secrets (`RICOCHET_SECRET_HEADERS`). */
  readonly secretHeaderNames?: readonly string[];
  /** Monotonic milliseconds, for durations. */
  readonly now?: () => number;
}

export const DEFAULT_USER_AGENT = "Ricochet/1 (+retry orchestrator)";
export const DEFAULT_MAX_BODY_EXCERPT_BYTES = 512;
/**
 * How long an idle pooled connection is kept: below the 5 s idle timeout of Node's and many other
 * servers (load balancers keep 60 s), so the pool seldom offers a socket the server is closing.
 * A server's `Keep-Alive: timeout=` hint shortens it further.
 */
export const IDLE_CONNECTION_MS = 4_000;

/** Merges header records by case-insensitive name; later records win, keeping their spelling. */
const mergeHeaders = (
  ...records: (Readonly<Record<string, string>> | undefined)[]
): Record<string, string> => {
  const merged = new Map<string, [string, string]>();
  for (const record of records) {
    for (const [name, value] of Object.entries(record ?? {})) {
      merged.set(name.toLowerCase(), [name, value]);
    }
  }
  return Object.fromEntries(merged.values());
};

const errorCode = (error: Error): string | undefined => {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === "string" ? code : undefined;
};

/**
 * Maps a socket-level failure to a category. `flushed` says whether the whole request had left,
 * which decides whether the receiver may have acted on it.
 */
const categorise = (
  error: Error,
  flushed: boolean,
): { category: ErrorCategory; requestSent: boolean } => {
  const code = errorCode(error) ?? "";
  switch (code) {
    case "ECONNREFUSED":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "EADDRNOTAVAIL":
      return { category: ErrorCategory.CONNECTION_REFUSED, requestSent: false };
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "ENODATA":
      return { category: ErrorCategory.DNS_FAILURE, requestSent: false };
    case "ECONNRESET":
    case "EPIPE":
    case "ECONNABORTED":
      return { category: ErrorCategory.CONNECTION_RESET, requestSent: flushed };
    case "ETIMEDOUT":
      return { category: ErrorCategory.TIMEOUT, requestSent: flushed };
    default:
      // TLS failures (ERR_TLS_*, CERT_*, …) and anything unforeseen.
      return { category: ErrorCategory.UNKNOWN, requestSent: flushed };
  }
};

const invalidTarget = (message: string, durationMs: number): AttemptResult => ({
  kind: "error",
  category: ErrorCategory.INVALID_TARGET,
  requestSent: false,
  message,
  durationMs,
});

interface ParsedTargetUrl {
  readonly url: URL;
  /** The userinfo, decoded: what Node's `auth` option sends as `Authorization: Basic …`. */
  readonly username: string;
  readonly password: string;
}

const parseTargetUrl = (target: HttpTarget): ParsedTargetUrl | string => {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return "target url is not a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `unsupported scheme ${url.protocol.replace(/:$/, "")}: only http and https are delivered`;
  }
  try {
    // A URL keeps a malformed escape (`%zz`) as it is, but decoding it throws.
    return {
      url,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
  } catch {
    return "target url's userinfo is not valid percent-encoding";
  }
};

/**
 * An HTTP(S) delivery target. Each call sends the payload as JSON with `Idempotency-Key`,
 * `Ricochet-Event-Id` and `Ricochet-Attempt` (`Ricochet-Replay` too, on a replayed event's calls;
 * and signature headers when a signer is given),
 * refuses internal addresses after DNS, pins the connection to the address checked, never follows
 * redirects, and bounds the whole call (DNS, signing, connect, response) by the target's timeout.
 * Connections are kept alive and reused per host: a TCP and TLS handshake per attempt would often
 * cost more than the call. A reused connection the server closes just as a request goes out is
 * reported like any reset after sending (uncertain), never silently sent again: one attempt is
 * one call. Every call still resolves and checks the host, so a name that now resolves to an
 * internal address is refused even while a pooled connection to its old address is open.
 * It never throws: every failure comes back as an error result with its category and whether the
 * request may have reached the receiver. Body excerpts and messages go through
 * {@link storedExcerpt} with the request's secret header values and the URL's password (plain and
 * as the `Basic` token Node sends), before any cut.
 */
export const createHttpTarget = (options: HttpTargetOptions = {}): DeliveryTarget => {
  const policy = createAddressPolicy(options.allowedHosts ?? []);
  const resolve = options.resolve ?? systemResolve;
  const now = options.now ?? (() => performance.now());
  const maxExcerpt = options.maxBodyExcerptBytes ?? DEFAULT_MAX_BODY_EXCERPT_BYTES;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  // One pool per target. Idle pooled sockets are unreferenced, so they never keep a process
  // alive; a new connection uses the pinned lookup, so it goes where the check looked.
  const agents = {
    http: new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
    https: new HttpsAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
  };

  const deliver = ({
    envelope,
    attempt,
    onSent,
    replay,
    timeoutMs: cutOffMs,
  }: DeliveryRequest): Promise<AttemptResult> => {
    const started = now();
    const elapsed = (): number => Math.max(0, Math.round(now() - started));
    const target: Envelope["target"] = envelope.target;
    if (target.type !== "http") {
      return Promise.resolve(invalidTarget(`not an http target: ${target.type}`, elapsed()));
    }
    const parsed = parseTargetUrl(target);
    if (typeof parsed === "string") return Promise.resolve(invalidTarget(parsed, elapsed()));
    const { url, username, password } = parsed;
    const secrets = [
      ...secretHeaderValues(target.headers, options.secretHeaderNames),
      ...userinfoSecrets(username, password),
    ];
    const body = JSON.stringify(envelope.payload ?? null);
    const timeoutMs = Math.min(
      target.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      cutOffMs ?? Number.POSITIVE_INFINITY,
    );

    return new Promise<AttemptResult>((settle) => {
      let settled = false;
      let flushed = false;
      let request: ClientRequest | undefined;
      let response: IncomingMessage | undefined;
      const chunks: Buffer[] = [];
      let received = 0;

      const finish = (result: AttemptResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // A response received whole leaves its socket to the pool; anything cut short (a long
        // body, a timeout, an error) closes it, since the connection's state is unknown.
        if (response?.complete !== true) request?.destroy();
        settle(result);
      };
      const fail = (category: ErrorCategory, message: string, requestSent = flushed): void =>
        finish({
          kind: "error",
          category,
          requestSent,
          message: storedExcerpt(message, { secrets }),
          durationMs: elapsed(),
        });
      const respond = (res: IncomingMessage): void => {
        const decoder = new StringDecoder("utf8");
        // The decoder holds back a multi-byte character cut by the bound instead of mangling it.
        const read = decoder.write(Buffer.concat(chunks).subarray(0, maxExcerpt));
        // Unless the whole body fits, the bound (or a timeout, or a reset) may have cut a secret
        // in two: the part that was read is blanked as well.
        const cutShort = res.complete !== true || received > maxExcerpt;
        const excerpt = storedExcerpt(read, { secrets, cutShort });
        const retryAfter = res.headers["retry-after"];
        finish({
          kind: "response",
          statusCode: res.statusCode ?? 0,
          retryAfter: typeof retryAfter === "string" ? retryAfter : undefined,
          bodyExcerpt: excerpt === "" ? undefined : excerpt,
          durationMs: elapsed(),
        });
      };

      const timer = setTimeout(() => {
        // Headers arrived but the body dawdles: the status is the outcome; keep what was read.
        if (response !== undefined) return respond(response);
        fail(
          ErrorCategory.TIMEOUT,
          flushed
            ? `no response within ${timeoutMs} ms after the request was sent`
            : `timed out after ${timeoutMs} ms before the request was sent`,
        );
      }, timeoutMs);

      const send = async (): Promise<void> => {
        const safe = await resolveSafeAddress(url.hostname, policy, resolve);
        if (settled) return;
        if (!safe.ok) return fail(safe.category, safe.message, false);
        let signature: Readonly<Record<string, string>> = {};
        if (options.signer !== undefined) {
          try {
            signature = await options.signer({ eventId: envelope.eventId, body });
          } catch (error) {
            return fail(ErrorCategory.UNKNOWN, `signing failed: ${errorMessage(error)}`, false);
          }
          if (settled) return;
        }
        const headers = mergeHeaders(
          { "User-Agent": userAgent, "Content-Type": "application/json" },
          target.headers,
          signature,
          {
            "Content-Length": String(Buffer.byteLength(body)),
            "Idempotency-Key": envelope.eventId,
            "Ricochet-Event-Id": envelope.eventId,
            "Ricochet-Attempt": String(attempt),
            // The same key on a replay: it is the same event (docs/design-notes.md).
            ...(replay === undefined ? {} : { "Ricochet-Replay": String(replay) }),
          },
        );
        const secure = url.protocol === "https:";
        const transport = secure ? httpsRequest : httpRequest;
        request = transport({
          protocol: url.protocol,
          host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
          port: url.port === "" ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: target.method ?? "POST",
          headers,
          auth: username === "" && password === "" ? undefined : `${username}:${password}`,
          lookup: pinnedLookup(safe.address, safe.family),
          agent: secure ? agents.https : agents.http,
        });
        request.on("finish", () => {
          flushed = true;
          notifySent(onSent);
        });
        request.on("response", (res) => {
          response = res;
          res.on("data", (chunk: Buffer) => {
            chunks.push(chunk);
            received += chunk.length;
            if (received >= maxExcerpt) respond(res);
          });
          res.on("end", () => respond(res));
          // A reset in the middle of the body: the status line already said what happened.
          res.on("error", () => respond(res));
          res.on("aborted", () => respond(res));
        });
        request.on("error", (error) => {
          if (response !== undefined) return respond(response);
          const { category, requestSent } = categorise(error, flushed);
          const code = errorCode(error);
          fail(
            category,
            code === undefined ? error.message : `${code}: ${error.message}`,
            requestSent,
          );
        });
        request.end(body);
      };
      send().catch((error: unknown) => fail(ErrorCategory.UNKNOWN, errorMessage(error), flushed));
    });
  };

  return { deliver };
};

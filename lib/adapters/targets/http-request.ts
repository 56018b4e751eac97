import { type ClientRequest, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { HttpTarget } from "../../core/envelope.js";
import type { DeliveryRequest } from "../../core/ports.js";
import { traceHeaders } from "../../core/trace-context.js";
import { pinnedLookup, type SafeAddress } from "./address-policy.js";
import type { ConnectionPools } from "./http-connection-pools.js";
import type { ParsedTargetUrl } from "./http-target-url.js";

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

/**
 * A delivery's headers: defaults the target may override, the target's own, the signature, and
 * Ricochet's, which nothing overrides.
 */
export const deliveryHeaders = (
  {
    envelope,
    attempt,
    replay,
    trace,
  }: Pick<DeliveryRequest, "envelope" | "attempt" | "replay" | "trace">,
  target: HttpTarget,
  body: string,
  signature: Readonly<Record<string, string>>,
  userAgent: string,
): Record<string, string> =>
  mergeHeaders(
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
      // The producer's trace, so the receiver joins it (W3C Trace Context); a target's own
      // `traceparent` header never stands in for the producer's.
      ...traceHeaders(trace),
    },
  );

/** Opens the request to the checked address only, on the target's pooled connections. */
export const openHttpRequest = (
  { url, username, password }: ParsedTargetUrl,
  method: string,
  headers: Readonly<Record<string, string>>,
  address: Extract<SafeAddress, { ok: true }>,
  pools: ConnectionPools,
): ClientRequest => {
  const secure = url.protocol === "https:";
  const transport = secure ? httpsRequest : httpRequest;
  return transport({
    protocol: url.protocol,
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port === "" ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method,
    headers,
    auth: username === "" && password === "" ? undefined : `${username}:${password}`,
    lookup: pinnedLookup(address.address, address.family),
    agent: secure ? pools.https : pools.http,
  });
};

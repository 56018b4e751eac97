import { performance } from "node:perf_hooks";
import { createAddressPolicy } from "../../core/address-policy.js";
import { DEFAULT_TIMEOUT_MS, type Envelope } from "../../core/envelope.js";
import type { AttemptResult, storedExcerpt } from "../../core/outcome.js";
import { ErrorCategory } from "../../core/policy.js";
import type { DeliveryRequest, DeliveryTarget } from "../../core/ports.js";
import { secretHeaderValues, userinfoSecrets } from "../../core/redact.js";
import type { DeliverySigner } from "../../core/signing.js";
import { type Resolve, systemResolve } from "./address-policy.js";
import { callHttp, type HttpCallPlan } from "./http-call.js";
import { createConnectionPools } from "./http-connection-pools.js";
import { parseTargetUrl } from "./http-target-url.js";

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

const DEFAULT_USER_AGENT = "Ricochet/1 (+retry orchestrator)";
const DEFAULT_MAX_BODY_EXCERPT_BYTES = 512;

const invalidTarget = (message: string, durationMs: number): AttemptResult => ({
  kind: "error",
  category: ErrorCategory.INVALID_TARGET,
  requestSent: false,
  message,
  durationMs,
});

/**
 * Checks what can be checked before any I/O (an http target, a URL Ricochet delivers to) and
 * prepares the call: its body, the secrets its excerpts blank, and its bound. An envelope that
 * cannot be delivered comes back as an `invalid_target` result.
 */
const planCall = (
  delivery: DeliveryRequest,
  secretHeaderNames: readonly string[] | undefined,
  elapsed: () => number,
): HttpCallPlan | AttemptResult => {
  const target: Envelope["target"] = delivery.envelope.target;
  if (target.type !== "http") return invalidTarget(`not an http target: ${target.type}`, elapsed());
  const targetUrl = parseTargetUrl(target);
  if (typeof targetUrl === "string") return invalidTarget(targetUrl, elapsed());
  return {
    delivery,
    target,
    targetUrl,
    body: JSON.stringify(delivery.envelope.payload ?? null),
    secrets: [
      ...secretHeaderValues(target.headers, secretHeaderNames),
      ...userinfoSecrets(targetUrl.username, targetUrl.password),
    ],
    timeoutMs: Math.min(
      target.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      delivery.timeoutMs ?? Number.POSITIVE_INFINITY,
    ),
    elapsed,
  };
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
  const now = options.now ?? (() => performance.now());
  const settings = {
    policy: createAddressPolicy(options.allowedHosts ?? []),
    resolve: options.resolve ?? systemResolve,
    signer: options.signer,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    maxExcerpt: options.maxBodyExcerptBytes ?? DEFAULT_MAX_BODY_EXCERPT_BYTES,
    pools: createConnectionPools(),
  };
  const deliver = (delivery: DeliveryRequest): Promise<AttemptResult> => {
    const started = now();
    const elapsed = (): number => Math.max(0, Math.round(now() - started));
    const plan = planCall(delivery, options.secretHeaderNames, elapsed);
    return "kind" in plan ? Promise.resolve(plan) : callHttp(plan, settings);
  };
  return { deliver };
};

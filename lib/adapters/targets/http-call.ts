import type { ClientRequest, IncomingMessage } from "node:http";
import type { AddressPolicy } from "../../core/address-policy.js";
import type { HttpTarget } from "../../core/envelope.js";
import { errorMessage } from "../../core/errors.js";
import { type AttemptResult, storedExcerpt } from "../../core/outcome.js";
import { ErrorCategory } from "../../core/policy.js";
import type { DeliveryRequest } from "../../core/ports.js";
import type { DeliverySigner } from "../../core/signing.js";
import { type Resolve, resolveSafeAddress, type SafeAddress } from "./address-policy.js";
import type { ConnectionPools } from "./http-connection-pools.js";
import { deliveryHeaders, openHttpRequest } from "./http-request.js";
import { responseResult } from "./http-response-result.js";
import { socketFailure } from "./http-socket-failure.js";
import type { ParsedTargetUrl } from "./http-target-url.js";
import { notifySent } from "./notify-sent.js";

/** One delivery call, checked and prepared: where to, what, and how long it may take. */
export interface HttpCallPlan {
  readonly delivery: DeliveryRequest;
  readonly target: HttpTarget;
  readonly targetUrl: ParsedTargetUrl;
  /** The payload as JSON, exactly as sent and signed. */
  readonly body: string;
  /** Values blanked from every excerpt and message: secret headers and the URL's userinfo. */
  readonly secrets: readonly string[];
  /** The bound on the whole call: DNS, signing, connect and response. */
  readonly timeoutMs: number;
  /** Milliseconds since the call started. */
  readonly elapsed: () => number;
}

/** What every call to one target shares. */
export interface HttpCallSettings {
  readonly policy: AddressPolicy;
  readonly resolve: Resolve;
  readonly signer: DeliverySigner | undefined;
  readonly userAgent: string;
  readonly maxExcerpt: number;
  readonly pools: ConnectionPools;
}

/** Signature headers over the exact body, or why signing failed. */
const sign = async (
  signer: DeliverySigner,
  request: Parameters<DeliverySigner>[0],
): Promise<
  | { readonly ok: true; readonly headers: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly message: string }
> => {
  try {
    return { ok: true, headers: await signer(request) };
  } catch (error) {
    return { ok: false, message: `signing failed: ${errorMessage(error)}` };
  }
};

/** What opening the request needs, or the failure that ends the call before anything is sent. */
type Readiness =
  | {
      readonly ok: true;
      readonly address: Extract<SafeAddress, { ok: true }>;
      readonly headers: Record<string, string>;
    }
  | {
      readonly ok: false;
      readonly category: ErrorCategory;
      readonly message: string;
      /** The failure is Ricochet's own (signing), not anything the target did. */
      readonly beforeContact?: boolean;
    };

/**
 * The steps before the request: resolve and check the address, then sign the body. Undefined
 * when the call settled (timed out) meanwhile, so nothing more is done for it.
 */
const readyToSend = async (
  plan: HttpCallPlan,
  settings: HttpCallSettings,
  settled: () => boolean,
): Promise<Readiness | undefined> => {
  const address = await resolveSafeAddress(
    plan.targetUrl.url.hostname,
    settings.policy,
    settings.resolve,
  );
  if (settled()) return undefined;
  if (!address.ok) return address;
  let signature: Readonly<Record<string, string>> = {};
  if (settings.signer !== undefined) {
    const signed = await sign(settings.signer, {
      eventId: plan.delivery.envelope.eventId,
      replay: plan.delivery.replay,
      body: plan.body,
    });
    if (settled()) return undefined;
    if (!signed.ok)
      return {
        ok: false,
        category: ErrorCategory.UNKNOWN,
        message: signed.message,
        beforeContact: true,
      };
    signature = signed.headers;
  }
  const headers = deliveryHeaders(
    plan.delivery,
    plan.target,
    plan.body,
    signature,
    settings.userAgent,
  );
  return { ok: true, address, headers };
};

const timeoutMessage = (timeoutMs: number, flushed: boolean): string =>
  flushed
    ? `no response within ${timeoutMs} ms after the request was sent`
    : `timed out after ${timeoutMs} ms before the request was sent`;

/** One call in progress: what has happened so far, and how to settle it. */
interface CallState {
  readonly plan: HttpCallPlan;
  readonly settings: HttpCallSettings;
  readonly settle: (result: AttemptResult) => void;
  settled: boolean;
  /** The whole request was written out. */
  flushed: boolean;
  request: ClientRequest | undefined;
  response: IncomingMessage | undefined;
  /** The response body read so far, up to the excerpt bound. */
  readonly chunks: Buffer[];
  received: number;
  timer: NodeJS.Timeout | undefined;
}

/** Settles once; a call not received whole is destroyed, since its connection's state is unknown. */
const finish = (call: CallState, result: AttemptResult): void => {
  if (call.settled) return;
  call.settled = true;
  clearTimeout(call.timer);
  if (call.response?.complete !== true) call.request?.destroy();
  call.settle(result);
};

/** How a call failed, and how far it got towards the target. */
interface CallFailure {
  readonly category: ErrorCategory;
  readonly message: string;
  /** Whether the whole request was written out; unset, whether the call has flushed it. */
  readonly requestSent?: boolean | undefined;
  /** Nothing went towards the target, or the failure is Ricochet's own (signing). */
  readonly beforeContact?: boolean | undefined;
}

const fail = (call: CallState, failure: CallFailure): void => {
  const { category, message, requestSent = call.flushed, beforeContact = false } = failure;
  finish(call, {
    kind: "error",
    category,
    requestSent,
    message: storedExcerpt(message, { secrets: call.plan.secrets }),
    durationMs: call.plan.elapsed(),
    ...(beforeContact ? { beforeContact } : {}),
  });
};

const respond = (call: CallState, res: IncomingMessage): void => {
  const { plan, settings, chunks, received } = call;
  finish(
    call,
    responseResult(res, { chunks, received }, settings.maxExcerpt, plan.secrets, plan.elapsed),
  );
};

const onTimeout = (call: CallState): void => {
  // Headers arrived but the body dawdles: the status is the outcome; keep what was read.
  if (call.response !== undefined) {
    respond(call, call.response);
    return;
  }
  // Still resolving or signing: the time ran out before anything went towards the target.
  const beforeContact = call.request === undefined;
  const message = timeoutMessage(call.plan.timeoutMs, call.flushed);
  fail(call, { category: ErrorCategory.TIMEOUT, message, beforeContact });
};

/** Reads the body up to the excerpt bound; whatever ends it, the status line has the outcome. */
const watchResponse = (call: CallState, res: IncomingMessage): void => {
  call.response = res;
  res.on("data", (chunk: Buffer) => {
    call.chunks.push(chunk);
    call.received += chunk.length;
    if (call.received >= call.settings.maxExcerpt) respond(call, res);
  });
  res.on("end", () => respond(call, res));
  // A reset in the middle of the body: the status line already said what happened.
  res.on("error", () => respond(call, res));
  res.on("aborted", () => respond(call, res));
};

const watchRequest = (call: CallState, sent: ClientRequest): void => {
  sent.on("finish", () => {
    call.flushed = true;
    notifySent(call.plan.delivery.onSent);
  });
  sent.on("response", (res) => watchResponse(call, res));
  sent.on("error", (error) => {
    if (call.response !== undefined) return respond(call, call.response);
    fail(call, socketFailure(error, call.flushed));
  });
};

const send = async (call: CallState): Promise<void> => {
  const { plan, settings } = call;
  const ready = await readyToSend(plan, settings, () => call.settled);
  if (ready === undefined) return;
  if (!ready.ok) {
    const { category, message, beforeContact } = ready;
    return fail(call, { category, message, requestSent: false, beforeContact });
  }
  const method = plan.target.method ?? "POST";
  const request = openHttpRequest(
    plan.targetUrl,
    method,
    ready.headers,
    ready.address,
    settings.pools,
  );
  call.request = request;
  watchRequest(call, request);
  request.end(plan.body);
};

/**
 * Makes one call and settles with its result exactly once: the first of the response (whole, or
 * cut at the excerpt bound), a failure, or the timeout. Whatever settles first also ends the
 * call: a response received whole leaves its socket to the pool; anything cut short (a long
 * body, a timeout, an error) closes it, since the connection's state is unknown.
 */
export const callHttp = (plan: HttpCallPlan, settings: HttpCallSettings): Promise<AttemptResult> =>
  new Promise<AttemptResult>((settle) => {
    const call: CallState = {
      plan,
      settings,
      settle,
      settled: false,
      flushed: false,
      request: undefined,
      response: undefined,
      chunks: [],
      received: 0,
      timer: undefined,
    };
    call.timer = setTimeout(() => onTimeout(call), plan.timeoutMs);
    send(call).catch((error: unknown) =>
      fail(call, { category: ErrorCategory.UNKNOWN, message: errorMessage(error) }),
    );
  });

/*
 * Who may talk to the console. It binds to 127.0.0.1, but that alone keeps out neither another
 * local user's process nor a web page the operator has open: a page can send requests to
 * 127.0.0.1 (cross-site), and a DNS-rebinding page can make its own name resolve there (a foreign
 * Host). So every request must carry the per-start token, name our own host, and not come from
 * another site. See README, "Console".
 */

import { timingSafeEqual } from "node:crypto";

/** The parts of a request the guard judges; header names are lower-case. */
export interface GuardedRequest {
  readonly method: string;
  readonly host: string | undefined;
  readonly origin: string | undefined;
  readonly secFetchSite: string | undefined;
  /** `?token=` in the URL (the link the console printed). */
  readonly queryToken: string | undefined;
  /** The token cookie set from a URL token. */
  readonly cookieToken: string | undefined;
  /** The form's token, for a POST. */
  readonly formToken?: string | undefined;
}

/** The verdict: let it through, or refuse it with a status and a reason for the page. */
export type GuardVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly status: 401 | 403; readonly reason: string };

/** The hosts the console answers as: its address and `localhost`, at its port. */
export const ownHosts = (port: number): readonly string[] => [
  `127.0.0.1:${port}`,
  `localhost:${port}`,
];

/** Compares in time independent of where the strings differ, so a timing cannot guess it. */
export const sameSecret = (given: string | undefined, expected: string): boolean => {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

const refuse = (status: 401 | 403, reason: string): GuardVerdict => ({ ok: false, status, reason });

/**
 * Judges a request to the console listening on `port` with `token`. The Host is checked first
 * (a rebinding page gets nothing, not even a token prompt), then the origin, then the token: a
 * POST needs it in its form as well as in the cookie or URL, so a request a page forges with the
 * operator's cookie still lacks it.
 */
export const guardRequest = (
  request: GuardedRequest,
  expected: { readonly port: number; readonly token: string },
): GuardVerdict => {
  const hosts = ownHosts(expected.port);
  if (request.host === undefined || !hosts.includes(request.host.toLowerCase())) {
    return refuse(403, "unexpected Host: open the console at the address it printed");
  }
  if (request.secFetchSite === "cross-site") return refuse(403, "cross-site request refused");
  if (
    request.origin !== undefined &&
    !hosts.some((host) => request.origin?.toLowerCase() === `http://${host}`)
  ) {
    return refuse(403, "request from another origin refused");
  }
  const carried = sameSecret(request.queryToken, expected.token)
    ? request.queryToken
    : request.cookieToken;
  if (!sameSecret(carried, expected.token)) {
    return refuse(401, "missing or wrong token: open the console at the address it printed");
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    if (!sameSecret(request.formToken, expected.token)) {
      return refuse(403, "form without the console's token refused");
    }
  }
  return { ok: true };
};

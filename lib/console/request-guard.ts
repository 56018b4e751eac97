/*
 * Who may talk to the console. It binds to 127.0.0.1, but that alone keeps out neither another
 * local user's process nor a web page the operator has open: a page can send requests to
 * 127.0.0.1 (cross-site), a DNS-rebinding page can make its own name resolve there (a foreign
 * Host), and any other listener on 127.0.0.1 is the same *site* at another port, which is sent
 * every cookie 127.0.0.1 holds (cookies ignore ports). So the credential is no cookie: it is a
 * request header that only the console's own pages send, from the tab's sessionStorage, which
 * is per origin (scheme, host and port). A navigation cannot carry a header: it gets the shell,
 * a page with no data that loads the real one with the header. See README, "Console", and
 * docs/design-notes.md, "The console's credential".
 *
 * Everything judged here is in the request's head: the guard runs before any body is read.
 */

import { timingSafeEqual } from "node:crypto";

/** The request header that carries the console's token (header names are case-insensitive). */
export const CONSOLE_TOKEN_HEADER = "ricochet-console-token";

/** The parts of a request the guard judges, all from its head; header names are lower-case. */
export interface GuardedRequest {
  readonly method: string;
  readonly path: string;
  readonly host: string | undefined;
  readonly origin: string | undefined;
  readonly secFetchSite: string | undefined;
  /** The {@link CONSOLE_TOKEN_HEADER} header, which the console's pages add to their requests. */
  readonly headerToken: string | undefined;
}

/** A refusal: its status and the reason the page shows. */
export interface GuardRefusal {
  readonly kind: "refuse";
  readonly status: 401 | 403 | 413;
  readonly reason: string;
}

/**
 * The verdict: let it through; answer a navigation without the token with the shell (a page
 * with no data, whose script loads the real one with the token); or refuse it.
 */
export type GuardVerdict = { readonly kind: "pass" } | { readonly kind: "shell" } | GuardRefusal;

/** The hosts the console answers as: its address and `localhost`, at its port. */
const ownHosts = (port: number): readonly string[] => [`127.0.0.1:${port}`, `localhost:${port}`];

/** Compares in time independent of where the strings differ, so a timing cannot guess it. */
export const sameSecret = (given: string | undefined, expected: string): boolean => {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** A refusal with its status and reason. */
export const refusal = (status: GuardRefusal["status"], reason: string): GuardRefusal => ({
  kind: "refuse",
  status,
  reason,
});

const PASS: GuardVerdict = { kind: "pass" };
const SHELL: GuardVerdict = { kind: "shell" };
const isRead = (method: string): boolean => method === "GET" || method === "HEAD";

/** What a request is judged against: where the console listens, its token, what is public. */
export interface GuardExpectation {
  readonly port: number;
  readonly token: string;
  /** Paths any read may have without the token: the scripts, which hold no data. */
  readonly publicPaths: ReadonlySet<string>;
}

/**
 * Judges a request's head for the console listening on `port` with `token`. The Host is checked
 * first (a rebinding page gets nothing, not even the shell), then the origin, then the token: a
 * read of a public path passes without it, another read without it is a navigation and gets the
 * shell, anything else without it is refused.
 * A change must also bring the form token in its body, which {@link guardForm} checks once the
 * body has been read within its limit.
 */
export const guardRequest = (request: GuardedRequest, expected: GuardExpectation): GuardVerdict => {
  const hosts = ownHosts(expected.port);
  if (request.host === undefined || !hosts.includes(request.host.toLowerCase())) {
    return refusal(403, "unexpected Host: open the console at the address it printed");
  }
  if (request.secFetchSite === "cross-site") {
    return refusal(403, "cross-site request refused: open the console at the address it printed");
  }
  if (
    request.origin !== undefined &&
    !hosts.some((host) => request.origin?.toLowerCase() === `http://${host}`)
  ) {
    return refusal(403, "request from another origin refused");
  }
  if (isRead(request.method) && expected.publicPaths.has(request.path)) return PASS;
  if (request.headerToken === undefined) {
    return isRead(request.method)
      ? SHELL
      : refusal(401, "a change needs the console token: make it from a console page");
  }
  if (!sameSecret(request.headerToken, expected.token)) {
    return refusal(
      401,
      "wrong console token (the console was restarted?): open the console at the address it printed",
    );
  }
  return PASS;
};

/**
 * Judges a change's form, read within the body limit: it must carry the console's form token,
 * which only its own pages hold, so a request forged with a stolen tab token alone still fails.
 */
export const guardForm = (formToken: unknown, expected: string): GuardVerdict =>
  typeof formToken === "string" && sameSecret(formToken, expected)
    ? PASS
    : refusal(403, "form without the console form token refused: use a console page");

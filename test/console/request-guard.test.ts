import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type GuardedRequest, guardRequest, sameSecret } from "../../lib/console/request-guard.js";

const PORT = 4123;
const TOKEN = "t0k3n-of-the-console-0123456789abcdef";
const expected = { port: PORT, token: TOKEN };

const aRequest = (overrides: Partial<GuardedRequest> = {}): GuardedRequest => ({
  method: "GET",
  host: `127.0.0.1:${PORT}`,
  origin: undefined,
  secFetchSite: undefined,
  queryToken: undefined,
  cookieToken: TOKEN,
  ...overrides,
});

describe("guardRequest", () => {
  it.each<[string, Partial<GuardedRequest>]>([
    ["a GET with the cookie", {}],
    ["a GET with the token in the URL only", { cookieToken: undefined, queryToken: TOKEN }],
    ["the console's localhost name", { host: `localhost:${PORT}` }],
    ["a Host in capitals", { host: `LOCALHOST:${PORT}` }],
    ["our own origin", { origin: `http://127.0.0.1:${PORT}`, secFetchSite: "same-origin" }],
    ["a POST with the form's token", { method: "POST", formToken: TOKEN }],
    ["a navigation typed in the address bar", { secFetchSite: "none" }],
  ])("lets through %s", (_, overrides) => {
    expect(guardRequest(aRequest(overrides), expected)).toEqual({ ok: true });
  });

  it.each<[string, Partial<GuardedRequest>, 401 | 403]>([
    ["no Host", { host: undefined }, 403],
    ["a rebinding page's Host", { host: `evil.example:${PORT}` }, 403],
    ["our address at another port", { host: "127.0.0.1:80" }, 403],
    ["a Host without the port", { host: "127.0.0.1" }, 403],
    ["a cross-site fetch", { secFetchSite: "cross-site" }, 403],
    ["another origin", { origin: "http://evil.example" }, 403],
    ["another port's origin (same site)", { origin: "http://127.0.0.1:9999" }, 403],
    ["an https origin of our host", { origin: `https://127.0.0.1:${PORT}` }, 403],
    ["the null origin", { origin: "null" }, 403],
    ["no token", { cookieToken: undefined }, 401],
    ["a wrong cookie", { cookieToken: `${TOKEN.slice(1)}x` }, 401],
    ["a wrong URL token and no cookie", { cookieToken: undefined, queryToken: "x" }, 401],
    ["a POST without the form's token", { method: "POST" }, 403],
    ["a POST with a wrong form token", { method: "POST", formToken: "nope" }, 403],
  ])("refuses %s", (_, overrides, status) => {
    const verdict = guardRequest(aRequest(overrides), expected);
    expect(verdict).toMatchObject({ ok: false, status });
  });

  it("never echoes the token in a refusal", () => {
    const verdict = guardRequest(aRequest({ cookieToken: "wrong" }), expected);
    expect(JSON.stringify(verdict)).not.toContain(TOKEN);
  });
});

describe("sameSecret", () => {
  it("is string equality, for any pair of strings", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(sameSecret(a, b)).toBe(a === b);
        expect(sameSecret(b, b)).toBe(true);
      }),
    );
  });

  it("is false for an absent value", () => {
    expect(sameSecret(undefined, TOKEN)).toBe(false);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type GuardedRequest,
  guardForm,
  guardRequest,
  sameSecret,
} from "../../lib/console/request-guard.js";

const PORT = 4123;
const TOKEN = "t0k3n-of-the-console-0123456789abcdef";
const FORM_TOKEN = "f0rm-t0k3n-of-the-console-0123456789";
const expected = { port: PORT, token: TOKEN, publicPaths: new Set(["/assets/htmx.min.js"]) };

const aRequest = (overrides: Partial<GuardedRequest> = {}): GuardedRequest => ({
  method: "GET",
  path: "/events",
  host: `127.0.0.1:${PORT}`,
  origin: undefined,
  secFetchSite: undefined,
  headerToken: TOKEN,
  ...overrides,
});

describe("guardRequest", () => {
  it.each<[string, Partial<GuardedRequest>]>([
    ["a GET with the token's header", {}],
    ["the console's localhost name", { host: `localhost:${PORT}` }],
    ["a Host in capitals", { host: `LOCALHOST:${PORT}` }],
    ["our own origin", { origin: `http://127.0.0.1:${PORT}`, secFetchSite: "same-origin" }],
    ["a POST with the token's header (its form is judged next)", { method: "POST" }],
    ["a public script without the token", { path: "/assets/htmx.min.js", headerToken: undefined }],
  ])("lets through %s", (_, overrides) => {
    expect(guardRequest(aRequest(overrides), expected)).toEqual({ kind: "pass" });
  });

  it.each<[string, Partial<GuardedRequest>]>([
    ["a link followed in the console's tab", { headerToken: undefined }],
    ["an address typed in the address bar", { headerToken: undefined, secFetchSite: "none" }],
    // Another port of 127.0.0.1 is the same site: its link opens the shell, which holds nothing.
    ["a link from another port's page", { headerToken: undefined, secFetchSite: "same-site" }],
  ])("answers %s without the token with the shell", (_, overrides) => {
    expect(guardRequest(aRequest(overrides), expected)).toEqual({ kind: "shell" });
  });

  it.each<[string, Partial<GuardedRequest>, 401 | 403]>([
    ["no Host", { host: undefined }, 403],
    ["a rebinding page's Host", { host: `evil.example:${PORT}` }, 403],
    ["our address at another port", { host: "127.0.0.1:80" }, 403],
    ["a Host without the port", { host: "127.0.0.1" }, 403],
    [
      "a rebinding page's read of a public script",
      { host: "evil.example", path: "/assets/htmx.min.js" },
      403,
    ],
    ["a cross-site fetch", { secFetchSite: "cross-site" }, 403],
    ["another origin", { origin: "http://evil.example" }, 403],
    ["another port's origin (same site)", { origin: "http://127.0.0.1:9999" }, 403],
    ["an https origin of our host", { origin: `https://127.0.0.1:${PORT}` }, 403],
    ["the null origin", { origin: "null" }, 403],
    ["a wrong token", { headerToken: `${TOKEN.slice(1)}x` }, 401],
    ["an empty token", { headerToken: "" }, 401],
    [
      "a wrong token for a public path's POST",
      { method: "POST", path: "/assets/htmx.min.js", headerToken: "x" },
      401,
    ],
    [
      "a POST without the token (a form another page posts)",
      { method: "POST", headerToken: undefined },
      401,
    ],
    ["a preflight without the token", { method: "OPTIONS", headerToken: undefined }, 401],
  ])("refuses %s, saying why", (_, overrides, status) => {
    const verdict = guardRequest(aRequest(overrides), expected);
    expect(verdict).toMatchObject({
      kind: "refuse",
      status,
      reason: expect.stringMatching(/\w{4}/),
    });
  });

  it("never echoes the token in a refusal", () => {
    const verdict = guardRequest(aRequest({ headerToken: "wrong" }), expected);
    expect(JSON.stringify(verdict)).not.toContain(TOKEN);
  });
});

describe("guardForm", () => {
  it("lets through a form with the form token", () => {
    expect(guardForm(FORM_TOKEN, FORM_TOKEN)).toEqual({ kind: "pass" });
  });

  it.each<[string, unknown]>([
    ["no form token", undefined],
    ["a wrong form token", `${FORM_TOKEN.slice(1)}x`],
    ["the tab's token instead of the form token", TOKEN],
    ["a file in its place", new Blob([FORM_TOKEN])],
    ["the field given twice", [FORM_TOKEN, FORM_TOKEN]],
  ])("refuses %s with 403 and a reason", (_, formToken) => {
    expect(guardForm(formToken, FORM_TOKEN)).toMatchObject({
      kind: "refuse",
      status: 403,
      reason: expect.stringContaining("form token"),
    });
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

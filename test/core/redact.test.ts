import { request } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  describeTarget,
  REDACTED,
  redactCredentials,
  redactHeaders,
  redactText,
  secretHeaderValues,
  userinfoSecrets,
} from "../../lib/core/redact.js";
import { aLambdaTarget, anHttpTarget } from "../support/factories.js";
import { aFiller, aSecret, leaksPartOf } from "./arbitraries.js";

describe("redactHeaders", () => {
  it.each([
    "Authorization",
    "proxy-authorization",
    "Cookie",
    "Set-Cookie",
    "X-Api-Key",
    "X-Auth-Token",
    "x-client-secret",
    "DB-Password",
    "Stripe-Signature",
    "my-api-key-v2",
  ])("redacts %s", (name) => {
    expect(redactHeaders({ [name]: "s3cr3t" })).toEqual({ [name]: REDACTED });
  });

  it.each(["Content-Type", "Accept", "X-Request-Id", "User-Agent"])("keeps %s", (name) => {
    expect(redactHeaders({ [name]: "visible" })).toEqual({ [name]: "visible" });
  });

  it("redacts configured extra names, whatever their case", () => {
    expect(redactHeaders({ "X-Tenant-Key": "k", Accept: "*/*" }, ["x-tenant-key"])).toEqual({
      "X-Tenant-Key": REDACTED,
      Accept: "*/*",
    });
  });

  it("does not modify its input", () => {
    const headers = { Authorization: "Bearer abc" };
    redactHeaders(headers);
    expect(headers).toEqual({ Authorization: "Bearer abc" });
  });
});

describe("secretHeaderValues", () => {
  it("lists secret values, and the bare token of a scheme credential", () => {
    expect(
      secretHeaderValues({ Authorization: "Bearer tok-123", Accept: "json", Cookie: "a=b" }),
    ).toEqual(["Bearer tok-123", "tok-123", "a=b"]);
  });

  it("copes with no headers", () => {
    expect(secretHeaderValues(undefined)).toEqual([]);
  });
});

describe("redactText", () => {
  it("blanks every occurrence of every secret", () => {
    expect(redactText("token abc then abc and xyz", ["abc", "xyz"])).toBe(
      `token ${REDACTED} then ${REDACTED} and ${REDACTED}`,
    );
  });

  it("blanks a longer secret whole even when a shorter one is inside it", () => {
    expect(redactText("key=abcdef", ["abc", "abcdef"])).toBe(`key=${REDACTED}`);
  });

  it("ignores empty secrets", () => {
    expect(redactText("unchanged", ["", "  "])).toBe("unchanged");
  });

  it("never leaves a secret in the result, outside the markers it inserts", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ minLength: 1 }).filter((s) => s.trim() === s && s !== ""),
        fc.string(),
        (before, secret, after) => {
          const fragments = redactText(`${before}${secret}${after}`, [secret]).split(REDACTED);
          for (const fragment of fragments) expect(fragment).not.toContain(secret);
        },
      ),
    );
  });
});

describe("redactText on text cut short", () => {
  it.each([
    ["a secret cut by the end", "denied: tok-abc-1", `denied: ${REDACTED}`],
    ["a whole secret, then the start of another", "tok-abc-123 tok-a", `${REDACTED} ${REDACTED}`],
    ["a secret whose start repeats", "x tok-tok-t", `x ${REDACTED}`],
    ["text ending before the secret", "denied: ", "denied: "],
  ])("blanks %s", (_, text, expected) => {
    expect(redactText(text, ["tok-abc-123", "tok-tok-tok-1"], { cutShort: true })).toBe(expected);
  });

  it("leaves the end alone when the text is whole", () => {
    expect(redactText("denied: tok-abc-1", ["tok-abc-123"])).toBe("denied: tok-abc-1");
  });

  it("leaves no 8 characters of a secret, wherever the cut falls", () => {
    fc.assert(
      fc.property(aFiller(), aSecret(), aFiller(), fc.nat(), (before, secret, after, at) => {
        const text = `${before}${secret}${after}`;
        const cut = text.slice(0, at % (text.length + 1));
        expect(leaksPartOf(redactText(cut, [secret], { cutShort: true }), secret)).toBe(false);
      }),
    );
  });
});

describe("redactCredentials", () => {
  it.each([
    ["Authorization: Basic dXNlcjpwYXNzd29yZA==", `Authorization: Basic ${REDACTED}`],
    ['{"authorization":"bearer eyJhbGciOi.J9eyJz.c2ln"}', `{"authorization":"bearer ${REDACTED}"}`],
    ["BASIC  dXNlcjpwYXNz, then", `BASIC  ${REDACTED}, then`],
    ["Bearer tok~-._+/abc=", `Bearer ${REDACTED}`],
  ])("blanks the token in %j", (text, expected) => {
    expect(redactCredentials(text)).toBe(expected);
  });

  it.each([
    'WWW-Authenticate: Bearer error="invalid_token"',
    "Basic realm",
    "use Bearer auth",
    "Debearer abcdefghijk",
  ])("keeps %j, which holds no credential", (text) => {
    expect(redactCredentials(text)).toBe(text);
  });

  it("leaves no 8 characters of any token after Basic or Bearer", () => {
    fc.assert(
      fc.property(
        aFiller(),
        fc.constantFrom("Basic ", "Bearer ", "bearer\t"),
        aSecret(),
        aFiller(),
        (before, scheme, token, after) => {
          const redacted = redactCredentials(`${before}${scheme}${token}${after}`);
          expect(leaksPartOf(redacted, token)).toBe(false);
        },
      ),
    );
  });
});

describe("userinfoSecrets", () => {
  it.each([
    ["user", "pass", ["pass", "dXNlcjpwYXNz"]],
    ["", "pw", ["pw", "OnB3"]],
    ["üser", "päss", ["päss", Buffer.from("üser:päss").toString("base64")]],
    ["user", "", []],
  ])("for %j and %j lists %j", (username, password, expected) => {
    expect(userinfoSecrets(username, password)).toEqual(expected);
  });

  it("lists the token of the Authorization header Node builds from the userinfo", () => {
    const sent = request({ host: "127.0.0.1", port: 9, auth: "üser:p@ss wörd" });
    sent.on("error", () => undefined);
    sent.destroy();
    expect(sent.getHeader("authorization")).toBe(
      `Basic ${userinfoSecrets("üser", "p@ss wörd")[1]}`,
    );
  });
});

describe("describeTarget", () => {
  it.each([
    [
      anHttpTarget({ url: "https://hooks.example.com/in?token=abc#frag" }),
      "http POST https://hooks.example.com/in",
    ],
    [
      anHttpTarget({ url: "https://user:pw@hooks.example.com:8443/a/b", method: "PUT" }),
      "http PUT https://hooks.example.com:8443/a/b",
    ],
    [anHttpTarget({ url: "http://hooks.example.com" }), "http POST http://hooks.example.com/"],
    [aLambdaTarget({ functionName: "my-fn:live" }), "lambda my-fn:live"],
  ])("summarises %o without secrets", (target, expected) => {
    expect(describeTarget(target)).toBe(expected);
  });
});

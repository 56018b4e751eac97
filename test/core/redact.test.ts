import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  describeTarget,
  REDACTED,
  redactHeaders,
  redactText,
  secretHeaderValues,
} from "../../lib/core/redact.js";
import { aLambdaTarget, anHttpTarget } from "../factories.js";

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

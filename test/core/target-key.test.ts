import { describe, expect, it } from "vitest";
import { targetKey } from "../../lib/core/target-key.js";
import { aLambdaTarget, anHttpTarget } from "../factories.js";

describe("targetKey", () => {
  it.each([
    [
      "an HTTPS URL, default port written",
      anHttpTarget({ url: "https://API.example.com/a?b=1" }),
      "http:https://api.example.com:443",
    ],
    [
      "an HTTP URL with its own port",
      anHttpTarget({ url: "http://10.0.0.7:8080/hook" }),
      "http:http://10.0.0.7:8080",
    ],
    ["an IPv6 host", anHttpTarget({ url: "http://[::1]:9000/x" }), "http:http://[::1]:9000"],
    ["a function name", aLambdaTarget({ functionName: "orders" }), "lambda:orders"],
    ["a function alias", aLambdaTarget({ functionName: "orders:live" }), "lambda:orders"],
    [
      "a qualified ARN",
      aLambdaTarget({ functionName: "arn:aws:lambda:eu-west-1:123456789012:function:orders:7" }),
      "lambda:arn:aws:lambda:eu-west-1:123456789012:function:orders",
    ],
    ["a group, over the URL", anHttpTarget({ group: "tenant-42" }), "group:tenant-42"],
    ["a group, over the function", aLambdaTarget({ group: "tenant-42" }), "group:tenant-42"],
  ])("keys %s", (_name, target, key) => {
    expect(targetKey(target)).toBe(key);
  });

  it("gives two paths on one origin the same key, and two origins different keys", () => {
    const a = targetKey(anHttpTarget({ url: "https://partner.example/orders" }));
    const b = targetKey(anHttpTarget({ url: "https://partner.example:443/refunds" }));
    const c = targetKey(anHttpTarget({ url: "https://partner.example:8443/orders" }));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });
});

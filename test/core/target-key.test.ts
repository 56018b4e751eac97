import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeTarget } from "../../lib/core/redact.js";
import { targetKeying } from "../../lib/core/target-groups.js";
import {
  naturalTargetKey,
  targetKeyOfRecord,
  targetKeyOfTyped,
} from "../../lib/core/target-key.js";
import { aLambdaTarget, anHttpTarget } from "../support/factories.js";

describe("naturalTargetKey", () => {
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
    [
      "an IPv6 host",
      anHttpTarget({ url: "http://[2001:DB8:0::1]:9000/x" }),
      "http:http://[2001:db8::1]:9000",
    ],
    ["a function name", aLambdaTarget({ functionName: "orders" }), "lambda:orders"],
    ["a function alias", aLambdaTarget({ functionName: "orders:live" }), "lambda:orders"],
    [
      "a qualified ARN",
      aLambdaTarget({ functionName: "arn:aws:lambda:eu-west-1:123456789012:function:orders:7" }),
      "lambda:arn:aws:lambda:eu-west-1:123456789012:function:orders",
    ],
    [
      "a URL whatever group its envelope names",
      anHttpTarget({ url: "https://a.example/x", group: "tenant-42" }),
      "http:https://a.example:443",
    ],
    [
      "a function whatever group its envelope names",
      aLambdaTarget({ functionName: "orders", group: "tenant-42" }),
      "lambda:orders",
    ],
  ])("keys %s", (_name, target, key) => {
    expect(naturalTargetKey(target)).toBe(key);
  });

  it("gives two paths on one origin the same key, and two origins different keys", () => {
    const a = naturalTargetKey(anHttpTarget({ url: "https://partner.example/orders" }));
    const b = naturalTargetKey(anHttpTarget({ url: "https://partner.example:443/refunds" }));
    const c = naturalTargetKey(anHttpTarget({ url: "https://partner.example:8443/orders" }));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });
});

/** Ways to write one host that reach the same place (issue #31, finding 4). */
const SPELLINGS: readonly (readonly [canonical: string, spellings: readonly string[]])[] = [
  [
    "127.0.0.1",
    [
      "127.0.0.1",
      "localhost",
      "LocalHost.",
      "api.localhost",
      "[::1]",
      "[0:0:0:0:0:0:0:1]",
      "[::ffff:127.0.0.1]",
      "[::ffff:7f00:1]",
      "[64:ff9b::127.0.0.1]",
      "2130706433",
      "0x7f.1",
      "127.1",
      "127.0.0.2",
      "0.0.0.0",
      "[::]",
    ],
  ],
  [
    "api.partner.example",
    ["api.partner.example", "API.Partner.Example", "api.partner.example.", "%61pi.partner.example"],
  ],
  [
    "10.0.0.7",
    ["10.0.0.7", "[::ffff:10.0.0.7]", "[::FFFF:a00:7]", "[64:ff9b::a00:7]", "167772167"],
  ],
  ["[2001:db8::1]", ["[2001:db8::1]", "[2001:DB8:0:0:0:0:0:1]", "[2001:0db8::0001]"]],
];

describe("one key per target, however its URL spells the host", () => {
  it.each(SPELLINGS.flatMap(([canonical, spellings]) => spellings.map((s) => [s, canonical])))(
    "keys %s as %s",
    (spelling, canonical) => {
      expect(naturalTargetKey(anHttpTarget({ url: `http://${spelling}:8080/x` }))).toBe(
        `http:http://${canonical}:8080`,
      );
    },
  );

  const aPlace = fc.constantFrom(...SPELLINGS);
  const aSpelledUrl = (spellings: readonly string[]) =>
    fc.record({
      host: fc.constantFrom(...spellings),
      https: fc.boolean(),
      writtenPort: fc.boolean(),
      path: fc.webPath(),
      userinfo: fc.constantFrom("", "u:p@"),
      upperScheme: fc.boolean(),
    });
  const urlOf = (u: {
    host: string;
    https: boolean;
    writtenPort: boolean;
    path: string;
    userinfo: string;
    upperScheme: boolean;
  }): string => {
    const scheme = u.https ? "https" : "http";
    const port = u.writtenPort ? (u.https ? ":443" : ":80") : "";
    return `${u.upperScheme ? scheme.toUpperCase() : scheme}://${u.userinfo}${u.host}${port}${u.path}`;
  };

  it("gives every spelling of one place, with or without its default port, the same key", () => {
    fc.assert(
      fc.property(
        aPlace.chain(([, spellings]) =>
          fc.tuple(aSpelledUrl(spellings), aSpelledUrl(spellings), fc.boolean()),
        ),
        ([a, b, sameScheme]) => {
          const second = { ...b, https: sameScheme ? a.https : b.https };
          const keyA = naturalTargetKey(anHttpTarget({ url: urlOf(a) }));
          const keyB = naturalTargetKey(anHttpTarget({ url: urlOf(second) }));
          expect(keyA === keyB).toBe(a.https === second.https);
        },
      ),
    );
  });

  it("gives different places different keys, however each is spelled", () => {
    const twoPlaces = fc
      .uniqueArray(aPlace, { minLength: 2, maxLength: 2, selector: ([canonical]) => canonical })
      .chain(([first, second]) =>
        fc.tuple(aSpelledUrl(first?.[1] ?? []), aSpelledUrl(second?.[1] ?? []), fc.boolean()),
      );
    fc.assert(
      fc.property(twoPlaces, ([a, b, https]) => {
        const keyOf = (u: typeof a) =>
          naturalTargetKey(anHttpTarget({ url: urlOf({ ...u, https }) }));
        expect(keyOf(a)).not.toBe(keyOf(b));
      }),
    );
  });

  it("is a fixed point: a key's own URL keys to the key", () => {
    fc.assert(
      fc.property(
        aPlace.chain(([, spellings]) => aSpelledUrl(spellings)),
        (u) => {
          const key = naturalTargetKey(anHttpTarget({ url: urlOf(u) }));
          expect(targetKeyOfTyped(key.slice("http:".length))).toBe(key);
        },
      ),
    );
  });
});

describe("targetKeyOfRecord", () => {
  const aHost = fc.oneof(
    fc.domain(),
    fc.ipV4(),
    fc.ipV6().map((ip) => `[${ip}]`),
  );
  const anHttpUrl = fc
    .record({
      scheme: fc.constantFrom("http", "https"),
      userinfo: fc.constantFrom("", "user:p%40ss@"),
      host: aHost,
      port: fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined }),
      path: fc.webPath(),
      query: fc.constantFrom("", "?token=abc"),
    })
    .map(
      (u) =>
        `${u.scheme}://${u.userinfo}${u.host}${u.port === undefined ? "" : `:${u.port}`}${u.path}${u.query}`,
    );
  const aFunctionName = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
    fc.stringMatching(/^[A-Za-z0-9_-]{1,64}:[A-Za-z0-9_-]{1,20}$/),
    fc
      .tuple(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), fc.option(fc.nat(99), { nil: undefined }))
      .map(
        ([name, version]) =>
          `arn:aws:lambda:eu-west-1:123456789012:function:${name}${version === undefined ? "" : `:${version}`}`,
      ),
  );
  const aGroup = fc.option(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/), {
    nil: undefined,
  });
  const aTarget = fc.oneof(
    fc
      .tuple(anHttpUrl, fc.constantFrom("POST", "PUT"), aGroup)
      .map(([url, method, group]) => anHttpTarget({ url, method, group })),
    fc
      .tuple(aFunctionName, aGroup)
      .map(([functionName, group]) => aLambdaTarget({ functionName, group })),
  );

  it("gives the target's key from what a record keeps: its summary and its declared group", () => {
    fc.assert(
      fc.property(aTarget, aGroup, (target, declared) => {
        const groups =
          declared === undefined ? undefined : { [declared]: [naturalTargetKey(target)] };
        const resolved = targetKeying(groups)(target);
        const record = { targetSummary: describeTarget(target), targetGroup: resolved.group };
        expect(targetKeyOfRecord(record)).toBe(resolved.key);
      }),
    );
  });

  it.each([
    ["no summary", {}],
    ["an invalid URL's summary", { targetSummary: "http POST (invalid url)" }],
  ])("gives no key for %s", (_name, record) => {
    expect(targetKeyOfRecord(record)).toBeUndefined();
  });
});

describe("targetKeyOfTyped", () => {
  it.each([
    [
      "a key, as ricochet targets prints it",
      "http:https://api.example.com:443",
      "http:https://api.example.com:443",
    ],
    ["a group's key", "tenant-7", "tenant-7"],
    [
      "a URL, meaning its origin",
      "https://api.example.com:8443/hooks/a?x=1",
      "http:https://api.example.com:8443",
    ],
    ["an upper-case scheme", "HTTP://api.example.com/x", "http:http://api.example.com:80"],
    [
      "a key in another spelling of its target",
      "http:http://localhost:8080",
      "http:http://127.0.0.1:8080",
    ],
  ])("reads %s", (_name, typed, key) => {
    expect(targetKeyOfTyped(typed)).toBe(key);
  });

  it("gives no key for a URL that does not parse", () => {
    expect(targetKeyOfTyped("https://")).toBeUndefined();
  });
});

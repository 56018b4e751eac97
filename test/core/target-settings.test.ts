import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import { naturalTargetKey } from "../../lib/core/target-key.js";
import {
  type TargetsSettings,
  TargetsSettingsSchema,
  targetSettingsResolver,
} from "../../lib/core/target-settings.js";
import { toProblems } from "../../lib/core/zod-problems.js";
import { anHttpTarget } from "../support/factories.js";

const PARTNER = "http:https://partner.example:443";
const OTHER = "group:tenant-7";

const resolverOf = (targets: TargetsSettings | undefined) =>
  targetSettingsResolver(DEFAULT_BREAKER_SETTINGS, targets);

describe("targetSettingsResolver", () => {
  it.each([
    ["nothing configured: no limits, the breakers' settings", undefined, OTHER, {}],
    [
      "defaults apply to every key",
      { defaults: { maxConcurrentCalls: 5, minimumCalls: 3 } },
      OTHER,
      { maxConcurrentCalls: 5, minimumCalls: 3 },
    ],
    [
      "a key's override wins over the defaults, field by field",
      {
        defaults: { maxConcurrentCalls: 5, minimumCalls: 3 },
        overrides: { [PARTNER]: { maxConcurrentCalls: 2 } },
      },
      PARTNER,
      { maxConcurrentCalls: 2, minimumCalls: 3 },
    ],
    [
      "another key's override does not leak",
      { overrides: { [PARTNER]: { maxConcurrentCalls: 2, openMs: 9_000 } } },
      OTHER,
      {},
    ],
    [
      "a rate limit slows the breaker's release to it",
      { overrides: { [PARTNER]: { maxCallsPerSecond: 3 } } },
      PARTNER,
      { maxCallsPerSecond: 3, releasePerSecond: 3 },
    ],
    [
      "a slower release than the rate limit is kept",
      { defaults: { releasePerSecond: 2 }, overrides: { [PARTNER]: { maxCallsPerSecond: 3 } } },
      PARTNER,
      { maxCallsPerSecond: 3, releasePerSecond: 2 },
    ],
  ] as const)("%s", (_name, targets, key, expected) => {
    const { maxConcurrentCalls, maxCallsPerSecond, ...breaker } = expected as Record<
      string,
      number
    >;
    expect(resolverOf(targets as TargetsSettings | undefined).settingsFor(key)).toEqual({
      maxConcurrentCalls,
      maxCallsPerSecond,
      breaker: { ...DEFAULT_BREAKER_SETTINGS, ...breaker },
    });
  });

  it.each([
    ["no settings", undefined, false],
    ["breaker fields only", { defaults: { minimumCalls: 3 } }, false],
    ["a default limit", { defaults: { maxCallsPerSecond: 3 } }, true],
    ["one key's limit", { overrides: { [OTHER]: { maxConcurrentCalls: 1 } } }, true],
  ] as const)("says whether any target is limited: %s", (_name, targets, limited) => {
    expect(resolverOf(targets).limited).toBe(limited);
  });

  it("resolves every field from the most specific layer that sets it", () => {
    const layer = fc.record(
      {
        maxConcurrentCalls: fc.integer({ min: 1, max: 100 }),
        minimumCalls: fc.integer({ min: 1, max: 100 }),
        openMs: fc.integer({ min: 1_000, max: 100_000 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(layer, layer, (defaults, override) => {
        const got = resolverOf({ defaults, overrides: { [PARTNER]: override } }).settingsFor(
          PARTNER,
        );
        expect(got.maxConcurrentCalls).toBe(
          override.maxConcurrentCalls ?? defaults.maxConcurrentCalls,
        );
        expect(got.breaker.minimumCalls).toBe(
          override.minimumCalls ?? defaults.minimumCalls ?? DEFAULT_BREAKER_SETTINGS.minimumCalls,
        );
        expect(got.breaker.openMs).toBe(
          override.openMs ?? defaults.openMs ?? DEFAULT_BREAKER_SETTINGS.openMs,
        );
      }),
    );
  });
});

describe("TargetsSettingsSchema", () => {
  const problemsOf = (input: unknown): string[] => {
    const checked = TargetsSettingsSchema.safeParse(input);
    return checked.success ? [] : toProblems(checked.error).map((p) => p.path);
  };

  it("accepts every key naturalTargetKey writes, and declared groups' keys", () => {
    for (const url of ["https://API.example.com/x", "http://10.0.0.7:8080/y", "http://[::1]:9/"]) {
      const key = naturalTargetKey(anHttpTarget({ url }));
      expect(problemsOf({ overrides: { [key]: { maxConcurrentCalls: 1 } } })).toEqual([]);
    }
    expect(
      problemsOf({
        overrides: { "lambda:orders": {}, "group:tenant-7": {} },
        groups: { "tenant-7": ["lambda:tenant-7-hooks"] },
      }),
    ).toEqual([]);
  });

  it("refuses a key in another spelling of its target, naming the key to write", () => {
    const checked = TargetsSettingsSchema.safeParse({
      overrides: { "http:http://localhost:8080": { maxConcurrentCalls: 1 } },
      groups: { dev: ["http:https://api.partner.example.:443"] },
    });
    const messages = checked.success ? [] : toProblems(checked.error).map((p) => p.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringContaining("this target's key is http:http://127.0.0.1:8080"),
        expect.stringContaining("this target's key is http:https://api.partner.example:443"),
      ]),
    );
  });

  it("lists every problem at once: keys no target can have, bad limits, unknown fields", () => {
    expect(
      problemsOf({
        defaults: { maxCallsPerSecond: 0.5, burst: 3 },
        overrides: {
          "https://partner.example": {},
          "http:https://Partner.example:443": {},
          "http:https://partner.example": {},
          "lambda:orders:live": {},
          "group:": {},
          "group:ok": { maxConcurrentCalls: 0 },
        },
      }).sort(),
    ).toEqual(
      [
        "defaults.maxCallsPerSecond",
        "defaults.burst",
        "overrides.https://partner.example",
        "overrides.http:https://Partner.example:443",
        "overrides.http:https://partner.example",
        "overrides.lambda:orders:live",
        "overrides.group:",
        "overrides.group:ok.maxConcurrentCalls",
      ].sort(),
    );
  });

  it.each([
    [
      "an override for a group no one declared",
      { overrides: { "group:tenant-7": {} } },
      ["overrides.group:tenant-7"],
    ],
    [
      "an override for a member, which answers to its group",
      {
        overrides: { "lambda:orders": {} },
        groups: { shop: ["lambda:orders"] },
      },
      ["overrides.lambda:orders"],
    ],
    [
      "a target declared in two groups",
      { groups: { a: ["lambda:orders"], b: ["lambda:orders"] } },
      ["groups.b"],
    ],
    [
      "members that are not target keys (a group, an unwritten port)",
      { groups: { a: ["group:b", "http:https://partner.example"] } },
      ["groups.a.0", "groups.a.1"],
    ],
    ["a group with no member", { groups: { a: [] } }, ["groups.a"]],
  ])("refuses %s", (_name, input, paths) => {
    expect(problemsOf(input).sort()).toEqual(paths.sort());
  });
});

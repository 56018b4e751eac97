import { describe, expect, it } from "vitest";
import { ENV } from "../../lib/contract/environment.js";
import {
  contextDefault,
  envText,
  SETTING_NAMES,
  SETTINGS,
  type Setting,
  STRUCTURED_SETTINGS,
} from "../../lib/contract/settings.js";

const entries = SETTING_NAMES.map((name) => [name, SETTINGS[name] as Setting<unknown>] as const);

describe("the settings table", () => {
  it.each(entries)("holds %s's default to its own rule", (_, entry) => {
    expect(entry.rule.safeParse(entry.default).success).toBe(true);
  });

  it("gives every setting its own cdk.json key, variable and former name", () => {
    const keys = [
      ...entries.flatMap(([, e]) => [
        e.contextKey,
        ...(e.deprecatedAlias ? [e.deprecatedAlias.prop] : []),
      ]),
      ...Object.values(STRUCTURED_SETTINGS).map((e) => e.contextKey),
    ];
    const variables = [
      ...entries.flatMap(([, e]) => [e.env, e.deprecatedAlias?.env]),
      ...Object.values(STRUCTURED_SETTINGS).map((e) => e.env),
    ].filter((v) => v !== undefined);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(variables).size).toBe(variables.length);
  });

  it("writes only the variables the functions' contract names (or Powertools reads)", () => {
    const known = new Set<string>([...Object.values(ENV), "POWERTOOLS_METRICS_NAMESPACE"]);
    const written = entries.flatMap(([, e]) => (e.env === undefined ? [] : [e.env]));
    expect(written.filter((v) => !known.has(v))).toEqual([]);
  });

  it("spells a duration's cdk.json key in the unit the key names", () => {
    const misnamed = entries.filter(([, e]) => {
      if (e.duration === undefined) return false;
      return !e.contextKey.toLowerCase().endsWith(e.duration);
    });
    expect(misnamed.map(([name]) => name)).toEqual([]);
  });

  it.each([
    ["ingressRetention", 4],
    ["functionTimeout", 60],
    ["batchSize", 10],
  ] as const)("gives %s's default in cdk.json's unit", (name, expected) => {
    expect(contextDefault(name)).toBe(expected);
  });

  it.each([
    [true, "on"],
    [false, "off"],
    [["a", "b"], "a,b"],
    [[], ""],
    [900, "900"],
    ["Ricochet", "Ricochet"],
  ] as const)("writes %j for the functions as %j", (value, text) => {
    expect(envText(value)).toBe(text);
  });
});

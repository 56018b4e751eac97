import { Duration } from "aws-cdk-lib";
import { describe, expect, expectTypeOf, it } from "vitest";
import { ENV } from "../../lib/contract/environment.js";
import {
  SETTING_NAMES,
  SETTINGS,
  type Setting,
  type SettingName,
} from "../../lib/contract/settings.js";
import { readAppSettings } from "../../lib/infra/app-context.js";
import {
  RETRY_ORCHESTRATOR_DEFAULTS,
  type RetryOrchestratorProps,
  resolveRetryOrchestratorProps,
  type SettingProps,
  settingsEnvironment,
} from "../../lib/infra/retry-orchestrator-props.js";
import { loadConfig } from "../../lib/runtime/config.js";

/*
 * The construct, its `cdk.json` reader and the functions all read the settings table
 * (lib/contract/settings.ts): these tests fail when one of them stops agreeing with it.
 */

/** Valid values other than the defaults, for the settings the functions read. */
const CHANGED = {
  allowedTargetHosts: ["10.0.0.0/8", "internal.example"],
  hopSeconds: 300,
  recordRetentionDays: 7,
  legacySignatures: false,
  adaptiveLimits: true,
  secretHeaders: ["x-api-key"],
  messageConcurrency: 4,
  lambdaTargets: ["arn:aws:lambda:eu-west-1:123456789012:function:orders"],
  targetMetrics: ["http:https://a.example:443"],
} as const satisfies Partial<Record<SettingName, unknown>>;

const WIRING = {
  [ENV.TABLE_NAME]: "events",
  [ENV.INGRESS_QUEUE_URL]: "http://localhost/ingress",
  [ENV.INTERNAL_QUEUE_URL]: "http://localhost/internal",
  [ENV.DEAD_LETTER_QUEUE_URL]: "http://localhost/dead-letters",
};

describe("RetryOrchestratorProps and the settings table", () => {
  it("types every scalar setting's prop as the table does (a Duration where it says so)", () => {
    expectTypeOf<
      Pick<Required<RetryOrchestratorProps>, SettingName>
    >().toEqualTypeOf<SettingProps>();
  });

  it.each(SETTING_NAMES)("defaults %s to the table's default", (name) => {
    const resolved = resolveRetryOrchestratorProps({})[name];
    const seconds = resolved instanceof Duration ? resolved.toSeconds() : resolved;
    expect(seconds).toEqual(SETTINGS[name].default);
    expect(RETRY_ORCHESTRATOR_DEFAULTS[name]).toEqual(resolveRetryOrchestratorProps({})[name]);
  });

  it("samples every setting whose variable the functions read (all but tracing's modes)", () => {
    const read = SETTING_NAMES.filter(
      (name) => SETTINGS[name].env?.startsWith("RICOCHET_") === true && name !== "tracing",
    );
    expect(Object.keys(CHANGED).sort()).toEqual([...read].sort());
  });

  it("hands the functions every setting they read as the construct resolved it", () => {
    const resolved = resolveRetryOrchestratorProps(CHANGED);
    const config = loadConfig({ ...WIRING, ...settingsEnvironment(resolved) });
    for (const [name, value] of Object.entries(CHANGED)) {
      expect({ name, value: config[name as keyof typeof CHANGED] }).toEqual({ name, value });
    }
  });

  it("hands the functions the defaults when no prop is given", () => {
    const config = loadConfig({
      ...WIRING,
      ...settingsEnvironment(resolveRetryOrchestratorProps()),
    });
    for (const name of Object.keys(CHANGED) as (keyof typeof CHANGED)[]) {
      expect({ name, value: config[name] }).toEqual({ name, value: SETTINGS[name].default });
    }
  });

  it.each(SETTING_NAMES)("reads %s from its cdk.json key into its prop", (name) => {
    const { contextKey, unit, duration }: Setting<unknown> = SETTINGS[name];
    const sample = unit === "switch" ? true : unit === "list" ? ["x"] : unit === "text" ? "X" : 7;
    const prop = readAppSettings({ [contextKey]: sample }).orchestrator[name];
    const expected =
      duration === "days"
        ? Duration.days(7)
        : duration === "seconds"
          ? Duration.seconds(7)
          : sample;
    expect(prop instanceof Duration ? prop.toSeconds() : prop).toEqual(
      expected instanceof Duration ? expected.toSeconds() : expected,
    );
  });

  it("reads the former name of a renamed setting from cdk.json and the environment", () => {
    expect(readAppSettings({ recordConcurrency: 3 }).orchestrator.recordConcurrency).toBe(3);
    expect(resolveRetryOrchestratorProps({ recordConcurrency: 3 }).messageConcurrency).toBe(3);
    expect(loadConfig({ ...WIRING, RICOCHET_RECORD_CONCURRENCY: "3" }).messageConcurrency).toBe(3);
  });
});

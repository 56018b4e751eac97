import { describe, expect, it } from "vitest";
import { recordRetentionSecondsFromEnv } from "../../lib/cli/deployment-from-env.js";
import { ENV } from "../../lib/contract/environment.js";
import { ConfigurationError } from "../../lib/core/errors.js";
import { loadConfig, retentionSeconds } from "../../lib/runtime/config.js";

const RESOURCES = {
  [ENV.TABLE_NAME]: "records",
  [ENV.INGRESS_QUEUE_URL]: "http://localhost/000000000000/ingress",
  [ENV.INTERNAL_QUEUE_URL]: "http://localhost/000000000000/internal",
  [ENV.DEAD_LETTER_QUEUE_URL]: "http://localhost/000000000000/dead",
};

const retentionEnv = (days: string | undefined) =>
  days === undefined ? RESOURCES : { ...RESOURCES, [ENV.RECORD_RETENTION_DAYS]: days };

// A cancel from the CLI must keep a record exactly as long as one from the functions.
describe("recordRetentionSecondsFromEnv: the functions' rule for RICOCHET_RECORD_RETENTION_DAYS", () => {
  it.each([
    ["unset: the default 30 days", undefined, 30],
    ["blank: the default 30 days", " ", 30],
    ["one day", "1", 1],
    ["ten years, the most allowed", "3650", 3650],
  ])("keeps a record as long as the functions do: %s", (_, days, expectedDays) => {
    const env = retentionEnv(days);
    expect(recordRetentionSecondsFromEnv(env)).toBe(expectedDays * 86_400);
    expect(recordRetentionSecondsFromEnv(env)).toBe(
      retentionSeconds(loadConfig(env).recordRetentionDays),
    );
  });

  it.each([
    ["a fraction of a day", "1.5"],
    ["zero", "0"],
    ["a negative number", "-3"],
    ["more than ten years", "3651"],
    ["not a number", "thirty"],
  ])("refuses %s with the error the functions give, naming the variable", (_, days) => {
    const env = retentionEnv(days);
    expect(() => loadConfig(env)).toThrow(/recordRetentionDays: must be a whole number of days/);
    expect(() => recordRetentionSecondsFromEnv(env)).toThrow(ConfigurationError);
    expect(() => recordRetentionSecondsFromEnv(env)).toThrow(
      `${ENV.RECORD_RETENTION_DAYS} must be a whole number of days from 1 to 3650`,
    );
  });
});

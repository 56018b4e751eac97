import { describe, expect, it } from "vitest";
import { ENV } from "../../lib/contract/environment.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import { ConfigurationError } from "../../lib/core/errors.js";
import { breakerOverride, describeBreakers } from "../../lib/local/dev-breaker-setting.js";
import { applyLocalOverrides } from "../../lib/local/dev-session.js";
import { loadConfig } from "../../lib/runtime/config.js";

const RESOURCES = {
  [ENV.TABLE_NAME]: "t",
  [ENV.INGRESS_QUEUE_URL]: "http://q/ingress",
  [ENV.INTERNAL_QUEUE_URL]: "http://q/internal",
  [ENV.DEAD_LETTER_QUEUE_URL]: "http://q/dlq",
};

describe("breakerOverride (npm start --circuit-breaker, RICOCHET_CIRCUIT_BREAKER)", () => {
  it("takes RICOCHET_CIRCUIT_BREAKER from npm start's environment", () => {
    expect(breakerOverride({ flag: undefined, env: { [ENV.CIRCUIT_BREAKER]: "on" } })).toEqual({
      value: "on",
      source: `${ENV.CIRCUIT_BREAKER} in the environment`,
    });
  });

  it("lets the flag win over the environment", () => {
    expect(breakerOverride({ flag: "off", env: { [ENV.CIRCUIT_BREAKER]: "on" } })?.source).toBe(
      "--circuit-breaker",
    );
  });

  it("leaves the template's setting when neither is given", () => {
    expect(breakerOverride({ flag: undefined, env: {} })).toBeUndefined();
  });

  it.each([
    ["yes", /RICOCHET_CIRCUIT_BREAKER in the environment must be on, off or a JSON object/],
    ['{"minimumCalls":0}', /invalid RICOCHET_CIRCUIT_BREAKER in the environment: minimumCalls/],
    ['{"minimumCall":5}', /invalid RICOCHET_CIRCUIT_BREAKER in the environment/],
  ])("refuses %s with a clear error rather than ignoring it", (value, message) => {
    const read = () => breakerOverride({ flag: undefined, env: { [ENV.CIRCUIT_BREAKER]: value } });
    expect(read).toThrow(ConfigurationError);
    expect(read).toThrow(message);
  });
});

describe("applyLocalOverrides with a breaker setting", () => {
  it("turns the breakers on over a template that has them off", () => {
    const env = applyLocalOverrides(RESOURCES, { circuitBreaker: '{"minimumCalls":4}' });
    expect(loadConfig(env).circuitBreaker).toEqual({
      ...DEFAULT_BREAKER_SETTINGS,
      minimumCalls: 4,
    });
  });

  it("turns them off over a template that has them on", () => {
    const env = applyLocalOverrides(
      { ...RESOURCES, [ENV.CIRCUIT_BREAKER]: "on" },
      { circuitBreaker: "off" },
    );
    expect(loadConfig(env).circuitBreaker).toBeUndefined();
  });
});

describe("describeBreakers (the banner's line)", () => {
  it("says the breakers are off, and how to turn them on", () => {
    expect(describeBreakers(undefined)).toBe(
      "off (--circuit-breaker on, or RICOCHET_CIRCUIT_BREAKER=on, turns them on)",
    );
  });

  it("says they are on, with when a breaker opens", () => {
    expect(describeBreakers(DEFAULT_BREAKER_SETTINGS)).toBe(
      "on: a target opens at 50% failed of at least 10 calls in 60 s, for 30 s up to 600 s",
    );
  });
});

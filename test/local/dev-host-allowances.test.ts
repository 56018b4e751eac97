import { describe, expect, it } from "vitest";
import { ENV } from "../../lib/contract/environment.js";
import { describeHostAllowances, hostAllowances } from "../../lib/local/dev-host-allowances.js";
import { applyLocalOverrides } from "../../lib/local/dev-session.js";

describe("hostAllowances", () => {
  it("adds the demo receiver, --allow-host and the environment's list, each with its reason", () => {
    const allowances = hostAllowances({
      demo: true,
      flagHosts: ["10.1.0.0/16", "hooks.internal"],
      env: { [ENV.ALLOWED_TARGET_HOSTS]: " 127.0.0.2 ,, ::1" },
    });

    expect(allowances.flatMap((a) => a.hosts)).toEqual([
      "127.0.0.1",
      "10.1.0.0/16",
      "hooks.internal",
      "127.0.0.2",
      "::1",
    ]);
    expect(describeHostAllowances(allowances)).toEqual([
      "127.0.0.1 added to the allowed target hosts for the demo receiver",
      "10.1.0.0/16, hooks.internal added to the allowed target hosts by --allow-host",
      `127.0.0.2, ::1 added to the allowed target hosts by ${ENV.ALLOWED_TARGET_HOSTS} in the environment`,
    ]);
  });

  it("adds nothing without the demo, the flag or the variable", () => {
    expect(hostAllowances({ demo: false, flagHosts: [], env: {} })).toEqual([]);
  });
});

describe("applyLocalOverrides", () => {
  it("adds local hosts to the template's allowed hosts without dropping any, each once", () => {
    const env = applyLocalOverrides(
      { [ENV.ALLOWED_TARGET_HOSTS]: "10.0.0.0/8,127.0.0.1" },
      { extraAllowedHosts: ["127.0.0.1", "127.0.0.2"] },
    );

    expect(env[ENV.ALLOWED_TARGET_HOSTS]).toBe("10.0.0.0/8,127.0.0.1,127.0.0.2");
  });
});

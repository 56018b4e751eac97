import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../lib/core/errors.js";
import { readAppSettings } from "../../lib/infra/app-context.js";

describe("readAppSettings", () => {
  it.each([undefined, null, {}])("names the stack Ricochet when the context is %j", (context) => {
    expect(readAppSettings(context).stackName).toBe("Ricochet");
  });

  it("turns seconds and days into durations and passes the rest through", () => {
    const { stackName, orchestrator } = readAppSettings({
      stackName: "RicochetStaging",
      functionTimeoutSeconds: 30,
      deadLetterRetentionDays: 10,
      allowedTargetHosts: ["10.0.0.0/8"],
      defaultPolicy: { maxAttempts: 3 },
      policyLimits: { maxAttempts: 10, minBaseDelaySeconds: 2 },
      circuitBreaker: { minimumCalls: 5 },
      targets: { overrides: { "group:tenant-7": { maxConcurrentCalls: 2 } } },
    });
    expect(stackName).toBe("RicochetStaging");
    expect(orchestrator.circuitBreaker).toEqual({ minimumCalls: 5 });
    expect(orchestrator.targets).toEqual({
      overrides: { "group:tenant-7": { maxConcurrentCalls: 2 } },
    });
    expect(orchestrator.functionTimeout?.toSeconds()).toBe(30);
    expect(orchestrator.deadLetterRetention?.toDays()).toBe(10);
    expect(orchestrator.ingressRetention).toBeUndefined();
    expect(orchestrator.allowedTargetHosts).toEqual(["10.0.0.0/8"]);
    expect(orchestrator.defaultPolicy).toEqual({ maxAttempts: 3 });
    expect(orchestrator.policyLimits).toEqual({ maxAttempts: 10, minBaseDelaySeconds: 2 });
  });

  it("reads the context given as JSON on the command line (-c ricochet=...)", () => {
    const { stackName, orchestrator } = readAppSettings(
      '{"stackName":"RicochetLocal","allowedTargetHosts":["host.docker.internal"]}',
    );
    expect(stackName).toBe("RicochetLocal");
    expect(orchestrator.allowedTargetHosts).toEqual(["host.docker.internal"]);
  });

  it("refuses a command-line context that is not JSON", () => {
    expect(() => readAppSettings("stackName=Ricochet")).toThrow(ConfigurationError);
  });

  it("names every malformed field at once, unknown keys included", () => {
    const read = () =>
      readAppSettings({
        batchSize: "ten",
        functionTimeout: 30,
        allowedTargetHosts: "a",
        policyLimits: { maxAttempts: "many", floor: 1 },
      });
    expect(read).toThrow(ConfigurationError);
    const message = (() => {
      try {
        read();
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    for (const field of [
      "batchSize",
      "allowedTargetHosts",
      "functionTimeout",
      "policyLimits.maxAttempts",
      "policyLimits.floor",
    ]) {
      expect(message).toContain(field);
    }
  });

  it("names the key meant by a misspelt one", () => {
    expect(() => readAppSettings({ functionTimeoutSecond: 30 })).toThrow(
      "functionTimeoutSecond: is not a recognized field; did you mean functionTimeoutSeconds?",
    );
  });
});

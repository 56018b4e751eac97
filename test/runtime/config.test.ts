import { describe, expect, it, vi } from "vitest";
import { createAwsClients } from "../../lib/adapters/aws-clients.js";
import { ENV, LAMBDA_RUNTIME_ENV } from "../../lib/contract/environment.js";
import { DEFAULT_BREAKER_SETTINGS } from "../../lib/core/circuit-breaker.js";
import { ConfigurationError } from "../../lib/core/errors.js";
import { ErrorCategory } from "../../lib/core/policy.js";
import { loadConfig } from "../../lib/runtime/config.js";
import { createPorts } from "../../lib/runtime/create-ports.js";
import { aLambdaTarget, anEnvelope } from "../support/factories.js";

const RESOURCES = {
  [ENV.TABLE_NAME]: "records",
  [ENV.INGRESS_QUEUE_URL]: "http://localhost/000000000000/ingress",
  [ENV.INTERNAL_QUEUE_URL]: "http://localhost/000000000000/internal",
  [ENV.DEAD_LETTER_QUEUE_URL]: "http://localhost/000000000000/dead",
};

const messageOf = (load: () => unknown): string => {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigurationError");
};

describe("loadConfig: policy limits", () => {
  it("defaults to a ceiling of 25 attempts and a base delay floor of 1 s", () => {
    expect(loadConfig(RESOURCES).policyLimits).toEqual({ maxAttempts: 25, minBaseDelaySeconds: 1 });
  });

  it("reads RICOCHET_POLICY_LIMITS, each field defaulting on its own", () => {
    const config = loadConfig({ ...RESOURCES, [ENV.POLICY_LIMITS]: '{"maxAttempts":12}' });
    expect(config.policyLimits).toEqual({ maxAttempts: 12, minBaseDelaySeconds: 1 });
  });

  it("refuses a default policy outside the limits, naming every conflict at once", () => {
    const message = messageOf(() =>
      loadConfig({
        ...RESOURCES,
        [ENV.DEFAULT_POLICY]: '{"maxAttempts":30,"baseDelaySeconds":0}',
      }),
    );
    expect(message).toContain("defaultPolicy.maxAttempts: 30 is above the ceiling");
    expect(message).toContain("defaultPolicy.baseDelaySeconds: 0 is below the floor");
  });
});

describe("loadConfig: message concurrency", () => {
  it.each([
    ["neither name", {}, 10],
    ["the current name", { RICOCHET_MESSAGE_CONCURRENCY: "4" }, 4],
    ["the former name, as an older construct deployed it", { RICOCHET_RECORD_CONCURRENCY: "3" }, 3],
    [
      "both names: the current one wins",
      { RICOCHET_MESSAGE_CONCURRENCY: "5", RICOCHET_RECORD_CONCURRENCY: "3" },
      5,
    ],
  ])("reads %s", (_name, env, expected) => {
    expect(loadConfig({ ...RESOURCES, ...env }).messageConcurrency).toBe(expected);
  });
});

describe("loadConfig: malformed JSON settings", () => {
  it.each([
    [ENV.POLICY_LIMITS, "{", "RICOCHET_POLICY_LIMITS is not valid JSON"],
    [ENV.POLICY_LIMITS, '{"maxAttempts":0}', "policyLimits.maxAttempts: must be at least 1"],
    [ENV.POLICY_LIMITS, '{"ceiling":3}', "policyLimits.ceiling: is not a recognized field"],
    [ENV.CIRCUIT_BREAKER, "{", "RICOCHET_CIRCUIT_BREAKER must be on, off or a JSON object"],
    [ENV.CIRCUIT_BREAKER, '{"failureRateThreshold":0}', "circuitBreaker.failureRateThreshold"],
    [ENV.CIRCUIT_BREAKER, '{"tripAfter":3}', "circuitBreaker.tripAfter: is not a recognized field"],
  ])("refuses %s=%s", (variable, value, fragment) => {
    expect(messageOf(() => loadConfig({ ...RESOURCES, [variable]: value }))).toContain(fragment);
  });
});

describe("loadConfig: circuit breakers", () => {
  it.each([
    ["unset", undefined, undefined],
    ["off", "off", undefined],
    ["on", "on", DEFAULT_BREAKER_SETTINGS],
    ["JSON overrides", '{"minimumCalls":3}', { ...DEFAULT_BREAKER_SETTINGS, minimumCalls: 3 }],
  ])("reads RICOCHET_CIRCUIT_BREAKER %s", (_name, value, expected) => {
    const env = value === undefined ? RESOURCES : { ...RESOURCES, [ENV.CIRCUIT_BREAKER]: value };
    expect(loadConfig(env).circuitBreaker).toEqual(expected);
  });
});

describe("loadConfig: adaptive limits", () => {
  it.each([
    ["unset: off", undefined, false],
    ["off", "off", false],
    ["on", "on", true],
    [" on  (trimmed)", " on ", true],
  ])("reads RICOCHET_ADAPTIVE_LIMITS %s", (_name, value, expected) => {
    const env = value === undefined ? RESOURCES : { ...RESOURCES, [ENV.ADAPTIVE_LIMITS]: value };
    expect(loadConfig(env).adaptiveLimits).toBe(expected);
  });

  it("refuses a value that is neither on nor off", () => {
    const env = { ...RESOURCES, [ENV.ADAPTIVE_LIMITS]: "true" };
    expect(messageOf(() => loadConfig(env))).toContain("adaptiveLimits: must be on or off");
  });
});

describe("loadConfig: per-target settings", () => {
  it("reads RICOCHET_TARGETS; unset means no per-target settings", () => {
    expect(loadConfig(RESOURCES).targets).toBeUndefined();
    const targets = {
      defaults: { maxCallsPerSecond: 20 },
      overrides: { "group:tenant-7": { maxConcurrentCalls: 2, openMs: 5_000 } },
      groups: { "tenant-7": ["lambda:tenant-7-ingest"] },
    };
    expect(loadConfig({ ...RESOURCES, [ENV.TARGETS]: JSON.stringify(targets) }).targets).toEqual(
      targets,
    );
  });

  it("refuses RICOCHET_TARGETS naming every problem at once", () => {
    const message = messageOf(() =>
      loadConfig({
        ...RESOURCES,
        [ENV.TARGETS]: JSON.stringify({
          defaults: { maxConcurrentCalls: 0 },
          overrides: { "https://partner.example": {}, "group:ok": { maxCallsPerSecond: 1.5 } },
        }),
      }),
    );
    expect(message).toContain("targets.defaults.maxConcurrentCalls:");
    expect(message).toContain("targets.overrides.https://partner.example:");
    expect(message).toContain("targets.overrides.group:ok.maxCallsPerSecond:");
  });
});

describe("loadConfig: what Lambda targets are judged by", () => {
  it("knows the function's own name, the operator function's, the account and the listed ARNs", () => {
    const config = loadConfig({
      ...RESOURCES,
      [LAMBDA_RUNTIME_ENV.FUNCTION_NAME]: "Ricochet-Orchestrator",
      [ENV.OPERATOR_FUNCTION_NAME]: "Ricochet-Redrive",
      [ENV.ACCOUNT_ID]: "123456789012",
      [ENV.LAMBDA_TARGETS]:
        "arn:aws:lambda:eu-west-1:210987654321:function:a,arn:aws:lambda:eu-west-1:123456789012:function:b",
    });
    expect(config).toMatchObject({
      ownFunctionNames: ["Ricochet-Orchestrator", "Ricochet-Redrive"],
      accountId: "123456789012",
      lambdaTargets: [
        "arn:aws:lambda:eu-west-1:210987654321:function:a",
        "arn:aws:lambda:eu-west-1:123456789012:function:b",
      ],
    });
  });

  it.each([
    [
      "the former name, as an older construct deployed it",
      { RICOCHET_REDRIVE_FUNCTION_NAME: "old" },
      ["old"],
    ],
    [
      "both names: the current one wins",
      { RICOCHET_OPERATOR_FUNCTION_NAME: "new", RICOCHET_REDRIVE_FUNCTION_NAME: "old" },
      ["new"],
    ],
  ])("knows the operator function's name under %s", (_name, env, expected) => {
    expect(loadConfig({ ...RESOURCES, ...env }).ownFunctionNames).toEqual(expected);
  });

  it("knows none of them outside Lambda and the construct", () => {
    expect(loadConfig(RESOURCES)).toMatchObject({
      ownFunctionNames: [],
      accountId: undefined,
      lambdaTargets: [],
    });
  });

  it("refuses an account id that is not 12 digits", () => {
    expect(messageOf(() => loadConfig({ ...RESOURCES, [ENV.ACCOUNT_ID]: "1234" }))).toContain(
      "accountId: must be a 12-digit AWS account id",
    );
  });

  it("wires them into the Lambda target: the orchestrator refuses itself without a call", async () => {
    const config = loadConfig({
      ...RESOURCES,
      [LAMBDA_RUNTIME_ENV.FUNCTION_NAME]: "Ricochet-Orchestrator",
      [ENV.OPERATOR_FUNCTION_NAME]: "Ricochet-Redrive",
      [ENV.ACCOUNT_ID]: "123456789012",
    });
    const clients = createAwsClients({ region: "us-east-1" });
    const lambda = vi.spyOn(clients, "lambda");
    try {
      const target = createPorts(config, clients).targets.forTarget("lambda");
      for (const functionName of ["Ricochet-Orchestrator", "Ricochet-Redrive:live"]) {
        const result = await target.deliver({
          envelope: anEnvelope({ target: aLambdaTarget({ functionName }) }),
          attempt: 1,
        });
        expect(result).toMatchObject({
          kind: "error",
          category: ErrorCategory.TARGET_REFUSED,
          requestSent: false,
        });
      }
      expect(lambda).not.toHaveBeenCalled();
    } finally {
      clients.destroy();
    }
  });
});

describe("loadConfig: misspelt variables", () => {
  it.each([
    ["RICOCHET_TRACNG", "RICOCHET_TRACING"],
    ["RICOCHET_MESAGE_CONCURRENCY", "RICOCHET_MESSAGE_CONCURRENCY"],
    ["RICOCHET_CIRCUIT_BREAKERS", "RICOCHET_CIRCUIT_BREAKER"],
  ])("refuses %s, naming %s", (typo, meant) => {
    expect(messageOf(() => loadConfig({ ...RESOURCES, [typo]: "on" }))).toContain(
      `${typo}: is not a variable Ricochet reads; did you mean ${meant}?`,
    );
  });

  it.each([
    "RICOCHET_QUEUE_URL",
    "RICOCHET_REDRIVE_FN",
    "RICOCHET_RECORD_CONCURRENCY",
    "RICOCHET_CHROMIUM",
  ])("leaves %s alone: a former name, a tool's, or near none of Ricochet's", (name) => {
    expect(() => loadConfig({ ...RESOURCES, [name]: "3" })).not.toThrow();
  });
});

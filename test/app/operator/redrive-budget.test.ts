import { describe, expect, it } from "vitest";
import { redriveBudget } from "../../../lib/app/operator/redrive-budget.js";
import { DEFAULT_POLICY } from "../../../lib/core/policy.js";
import { anEnvelope, anEventRecord } from "../../support/factories.js";

const record = anEventRecord({ attempts: 8, attemptBudget: 8 });
const LIMITS = { maxAttempts: 25, minBaseDelaySeconds: 1 };

describe("redriveBudget", () => {
  it.each([
    ["extra attempts on top of those made", { extraAttempts: 3 }, undefined, 11],
    ["a reset to the deployment's maxAttempts", { resetAttempts: true }, undefined, 16],
    ["a reset to the envelope's own maxAttempts", { resetAttempts: true }, { maxAttempts: 5 }, 13],
    // The orchestrator clamps an override to the ceiling; a reset must not grant more.
    [
      "a reset to an override above the ceiling, clamped",
      { resetAttempts: true },
      { maxAttempts: 100 },
      33,
    ],
  ] as const)("grants %s", (_name, request, policy, expected) => {
    const envelope = anEnvelope(policy === undefined ? {} : { policy });
    const deployment = { defaultPolicy: DEFAULT_POLICY, policyLimits: LIMITS };
    expect(redriveBudget(record, envelope, request, deployment)).toBe(expected);
  });
});

import { App, Duration, Stack } from "aws-cdk-lib";
import { Annotations, Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError } from "../../lib/core/errors.js";
import type { PolicyOverride } from "../../lib/core/policy.js";
import { SHORT_RETRY_WINDOW_WARNING } from "../../lib/infra/index.js";
import { RetryOrchestrator } from "../../lib/infra/retry-orchestrator.js";
import {
  RETRY_ORCHESTRATOR_DEFAULTS,
  type RetryOrchestratorProps,
  resolveRetryOrchestratorProps,
} from "../../lib/infra/retry-orchestrator-props.js";

/** Celery's `max_retries=3, retry_backoff=1`, and the local demo's policy: 1 + 2 + 4 = 7 s. */
const SEVEN_SECOND_TRAP: PolicyOverride = { maxAttempts: 4, baseDelaySeconds: 1, jitter: "none" };

const stacks: Record<string, Stack> = {};

beforeAll(() => {
  // Each orchestrator bundles its functions while constructing: one app, built once.
  const app = new App();
  const cases: Record<string, RetryOrchestratorProps> = {
    Trap: { defaultPolicy: SEVEN_SECOND_TRAP },
    TrapBelowThreshold: {
      defaultPolicy: SEVEN_SECOND_TRAP,
      shortRetryWindowThreshold: Duration.seconds(7),
    },
    Default: {},
    RaisedThreshold: { shortRetryWindowThreshold: Duration.hours(1) },
  };
  for (const [name, props] of Object.entries(cases)) {
    stacks[name] = new Stack(app, name);
    new RetryOrchestrator(stacks[name] as Stack, "Retries", props);
  }
});

const warningsOf = (name: string) =>
  Annotations.fromStack(stacks[name] as Stack).findWarning(
    "*",
    Match.stringLikeRegexp(SHORT_RETRY_WINDOW_WARNING),
  );

describe("the short retry window synth warning", () => {
  it("warns on the orchestrator when the default policy retries for 7 s in all", () => {
    Annotations.fromStack(stacks.Trap as Stack).hasWarning(
      "/Trap/Retries",
      Match.stringLikeRegexp(
        "^Ricochet's defaultPolicy: the 3 retries wait at most 7 s in total, under 60 s: .*" +
          "shortRetryWindowThreshold .*\\[ack: ricochet:shortRetryWindow\\]$",
      ),
    );
    expect(warningsOf("Trap")).toHaveLength(1);
  });

  it.each([
    ["the trap with a threshold at its window", "TrapBelowThreshold", 0],
    ["the built-in default policy (635 s)", "Default", 0],
    ["the built-in default policy under a one-hour threshold", "RaisedThreshold", 1],
  ])("judges %s against the threshold prop", (_name, stack, warnings) => {
    expect(warningsOf(stack)).toHaveLength(warnings);
  });

  it("defaults the threshold to one minute", () => {
    expect(RETRY_ORCHESTRATOR_DEFAULTS.shortRetryWindowThreshold.toSeconds()).toBe(60);
    expect(resolveRetryOrchestratorProps().shortRetryWindowThreshold.toSeconds()).toBe(60);
  });

  it.each([
    ["a fraction of a second", Duration.millis(1500)],
    ["more than 14 days", Duration.days(15)],
  ])("rejects a threshold of %s with the other props' problems", (_name, threshold) => {
    const resolve = () =>
      resolveRetryOrchestratorProps({ shortRetryWindowThreshold: threshold, hopSeconds: 0 });
    expect(resolve).toThrow(ConfigurationError);
    expect(resolve).toThrow(
      /shortRetryWindowThreshold: .*hopSeconds: |hopSeconds: .*shortRetryWindowThreshold: /,
    );
  });
});

import { Annotations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";
import { DEFAULT_POLICY, resolvePolicy } from "../core/policy.js";
import { describeShortWindow, judgeRetryWindow } from "../core/retry-window.js";
import type { ResolvedRetryOrchestratorProps } from "./retry-orchestrator-props.js";

/** The id of the synth warning, for `Annotations.of(scope).acknowledgeWarning(...)`. */
export const SHORT_RETRY_WINDOW_WARNING = "ricochet:shortRetryWindow";

/**
 * Warns at synth when the deployment's default policy retries for less than the threshold in
 * total. A warning, not an error: a short window can be what a caller wants (a user waiting on
 * the result), and `cdk synth --strict` turns warnings into failures for those who want that.
 */
export const warnOnShortRetryWindow = (
  scope: IConstruct,
  settings: Pick<ResolvedRetryOrchestratorProps, "defaultPolicy" | "shortRetryWindowThreshold">,
): void => {
  const window = judgeRetryWindow(
    resolvePolicy(DEFAULT_POLICY, settings.defaultPolicy),
    settings.shortRetryWindowThreshold.toSeconds(),
  );
  if (!window.short) return;
  Annotations.of(scope).addWarningV2(
    SHORT_RETRY_WINDOW_WARNING,
    `Ricochet's defaultPolicy: ${describeShortWindow(window)}; or lower shortRetryWindowThreshold ` +
      "(Duration.seconds(0) never warns).",
  );
};

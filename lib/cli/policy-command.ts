import Table from "cli-table3";
import { type Command, InvalidArgumentError, Option } from "commander";
import { ENV } from "../contract/environment.js";
import { explainPolicy, type PolicyExplanation } from "../core/explain.js";
import { DEFAULT_POLICY, Jitter, type RetryPolicy, resolvePolicy } from "../core/policy.js";
import { DEFAULT_POLICY_LIMITS, type PolicyLimits } from "../core/policy-limits.js";
import { seededRandom } from "../core/random.js";
import {
  DEFAULT_SHORT_WINDOW_THRESHOLD_SECONDS,
  describeShortWindow,
  judgeRetryWindow,
} from "../core/retry-window.js";
import { formatSeconds } from "../core/time-format.js";
import {
  parseNonNegativeNumber,
  parsePositiveWholeNumber,
  parseWholeNumber,
  printResult,
  withJsonOption,
} from "./cli-support.js";
import { policyLimitsFromEnv } from "./policy-limits-from-env.js";
import { parseDuration } from "./time-flags.js";

/** Samples drawn by `policy explain` unless `--samples` says otherwise. */
const DEFAULT_EXPLAIN_SAMPLES = 10_000;
/** Keeps `policy explain` interactive: 99 retries × this many samples still finish in seconds. */
const MAX_EXPLAIN_SAMPLES = 1_000_000;

interface ExplainFlags {
  readonly maxAttempts?: number;
  readonly base?: number;
  readonly multiplier?: number;
  readonly maxDelay?: number;
  readonly jitter?: Jitter;
  /**
   * `--no-retry-error-types`: commander names a `--no-…` option after its positive form. Having
   * no `--retry-error-types` beside it, it takes its value like any other option.
   */
  readonly retryErrorTypes: string[];
  readonly retryOnlyErrorTypes: string[];
  readonly limitMaxAttempts?: number;
  readonly limitMinBase?: number;
  readonly samples: number;
  readonly seed: number;
  /** Seconds under which the whole retry window is warned about (0: never). */
  readonly warnBelow: number;
  readonly json: boolean;
}

const range = (min: number, max: number): string => (min === max ? `${min}` : `${min}–${max}`);

const seconds = (value: number): string =>
  value < 60 ? `${value}s` : `${value}s (${formatSeconds(value)})`;

/** The table and one-line summary `policy explain` prints without `--json`. */
const renderExplanation = (explanation: PolicyExplanation, samples: number): string => {
  const { policy } = explanation;
  const table = new Table({
    head: ["retry", "ceiling (s)", "range (s)", "p50 (s)", "p90 (s)", "p99 (s)"],
    colAligns: ["right", "right", "right", "right", "right", "right"],
    style: { head: [], border: [] },
    chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
  });
  for (const r of explanation.retries) {
    table.push([
      r.retry,
      r.ceilingSeconds,
      range(r.minSeconds, r.maxSeconds),
      r.p50Seconds,
      r.p90Seconds,
      r.p99Seconds,
    ]);
  }
  const header =
    `maxAttempts ${policy.maxAttempts}, base ${policy.baseDelaySeconds}s, ` +
    `multiplier ${policy.multiplier}, maxDelay ${policy.maxDelaySeconds}s, jitter ${policy.jitter}`;
  const summary =
    `${explanation.retries.length} retries wait at most ${seconds(explanation.totalMaxSeconds)} ` +
    `in total; median ${seconds(explanation.totalP50Seconds)} over ${samples} samples.`;
  const errorTypes = renderErrorTypeLists(policy);
  const heading = errorTypes === undefined ? header : `${header}\n${errorTypes}`;
  const body =
    explanation.retries.length === 0
      ? `${heading}\nNo retries: maxAttempts is 1.`
      : `${heading}\n${table.toString()}\n${summary}`;
  return explanation.limits === undefined
    ? body
    : `${body}\n${renderLimits(explanation.limits, explanation.adjustments ?? [])}`;
};

/**
 * What the policy's Lambda error-type lists do, or `undefined` when it has none (every unhandled
 * function error is retried). The policy allows at most one of the two lists.
 */
const renderErrorTypeLists = (policy: RetryPolicy): string | undefined => {
  if (policy.noRetryErrorTypes.length > 0) {
    return (
      `Lambda function errors of type ${policy.noRetryErrorTypes.join(", ")} are never retried: ` +
      "the event is rejected at once; other unhandled errors are retried."
    );
  }
  if (policy.retryOnlyErrorTypes.length > 0) {
    return (
      `Lambda function errors are retried only when of type ${policy.retryOnlyErrorTypes.join(", ")}: ` +
      "any other unhandled error, or one without a type, rejects the event at once."
    );
  }
  return undefined;
};

/** The deployment's limits and the policy's standing against them, one or more lines. */
const renderLimits = (limits: PolicyLimits, adjustments: readonly string[]): string => {
  const bounds =
    `Limits: maxAttempts at most ${limits.maxAttempts}, ` +
    `baseDelaySeconds at least ${limits.minBaseDelaySeconds}`;
  return adjustments.length === 0
    ? `${bounds}: within them.`
    : `${bounds}: outside them; an event asking for this policy is clamped:\n${adjustments
        .map((adjustment) => `  - ${adjustment}`)
        .join("\n")}`;
};

/** The deployment's limits: the flags over what {@link policyLimitsFromEnv} reads. */
const limitsFrom = (flags: ExplainFlags): PolicyLimits =>
  policyLimitsFromEnv({
    ...(flags.limitMaxAttempts === undefined ? {} : { maxAttempts: flags.limitMaxAttempts }),
    ...(flags.limitMinBase === undefined ? {} : { minBaseDelaySeconds: flags.limitMinBase }),
  });

// Policy numbers are only checked to be numbers here; resolvePolicy judges the values (whole,
// in range, base <= max) so the CLI reports them exactly as a deployment or an envelope would.
const explainAction = (flags: ExplainFlags): void => {
  // Every policy value goes through resolvePolicy, so a bad one reads as it does everywhere.
  const policy = resolvePolicy(DEFAULT_POLICY, {
    maxAttempts: flags.maxAttempts,
    baseDelaySeconds: flags.base,
    multiplier: flags.multiplier,
    maxDelaySeconds: flags.maxDelay,
    jitter: flags.jitter,
    noRetryErrorTypes: flags.retryErrorTypes,
    retryOnlyErrorTypes: flags.retryOnlyErrorTypes,
  });
  const explanation = explainPolicy(policy, {
    samples: flags.samples,
    random: seededRandom(flags.seed),
    limits: limitsFrom(flags),
  });
  const retryWindow = judgeRetryWindow(policy, flags.warnBelow);
  printResult(
    { ...explanation, retryWindow },
    { json: flags.json, human: (result) => renderExplanation(result, flags.samples) },
  );
  // On stderr, so the table can be piped on; JSON carries the same judgement as `retryWindow`.
  if (retryWindow.short && !flags.json) {
    process.stderr.write(
      `ricochet: warning: ${describeShortWindow(retryWindow)} (--warn-below sets the threshold)\n`,
    );
  }
};

/** A comma-separated list of error types; a repeated flag adds to the list. */
const appendErrorTypes = (value: string, previous: readonly string[]): string[] => [
  ...previous,
  ...value.split(",").map((name) => name.trim()),
];

const errorTypesOption = (flags: string, description: string): Option =>
  new Option(flags, description).argParser(appendErrorTypes).default([], "none");

const parseSamples = (value: string): number => {
  const samples = parsePositiveWholeNumber(value);
  if (samples > MAX_EXPLAIN_SAMPLES) {
    throw new InvalidArgumentError(`must be at most ${MAX_EXPLAIN_SAMPLES}.`);
  }
  return samples;
};

/** Registers `ricochet policy …`: commands that show what a retry policy does. */
export const registerPolicyCommands = (program: Command): void => {
  const policy = program.command("policy").description("Inspect retry policies.");
  const explain = policy
    .command("explain")
    .description(
      "Show each retry's ceiling, delay range and drawn percentiles, the total retry window, " +
        "and whether the policy lies within the deployment's limits.",
    )
    .option(
      "--max-attempts <n>",
      `total attempts, the first included (default ${DEFAULT_POLICY.maxAttempts})`,
      parseNonNegativeNumber,
    )
    .option(
      "--base <seconds>",
      `first retry's ceiling (default ${DEFAULT_POLICY.baseDelaySeconds})`,
      parseNonNegativeNumber,
    )
    .option(
      "--multiplier <m>",
      `ceiling growth per retry (default ${DEFAULT_POLICY.multiplier})`,
      parseNonNegativeNumber,
    )
    .option(
      "--max-delay <seconds>",
      `cap on every ceiling (default ${DEFAULT_POLICY.maxDelaySeconds})`,
      parseNonNegativeNumber,
    )
    .addOption(
      new Option(
        "--jitter <kind>",
        `how delays are drawn (default ${DEFAULT_POLICY.jitter})`,
      ).choices(Object.values(Jitter)),
    )
    .addOption(
      errorTypesOption(
        "--no-retry-error-types <types>",
        "Lambda function error types (errorType, comma-separated) never retried: the event is rejected",
      ),
    )
    .addOption(
      errorTypesOption(
        "--retry-only-error-types <types>",
        "the only Lambda function error types retried (comma-separated); any other rejects the event",
      ),
    )
    .option(
      "--limit-max-attempts <n>",
      `the deployment's ceiling on maxAttempts (default $${ENV.POLICY_LIMITS} or ${DEFAULT_POLICY_LIMITS.maxAttempts})`,
      parseNonNegativeNumber,
    )
    .option(
      "--limit-min-base <seconds>",
      `the deployment's floor on the base delay (default $${ENV.POLICY_LIMITS} or ${DEFAULT_POLICY_LIMITS.minBaseDelaySeconds})`,
      parseNonNegativeNumber,
    )
    .option(
      "--samples <k>",
      "schedules drawn for the percentiles",
      parseSamples,
      DEFAULT_EXPLAIN_SAMPLES,
    )
    .option("--seed <x>", "seed of the random draws, for replayable output", parseWholeNumber, 1)
    .addOption(
      new Option(
        "--warn-below <duration>",
        "warn when the whole retry window (the sum of the ceilings) is shorter (90s, 2m; 0s: never)",
      )
        .argParser(parseDuration)
        .default(DEFAULT_SHORT_WINDOW_THRESHOLD_SECONDS, "1m"),
    );
  withJsonOption(explain).action(explainAction);
};

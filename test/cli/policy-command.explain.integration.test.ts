import { describe, expect, it } from "vitest";
import { explainPolicy } from "../../lib/core/explain.js";
import { DEFAULT_POLICY, resolvePolicy } from "../../lib/core/policy.js";
import { seededRandom } from "../../lib/core/random.js";
import { type CliResult, runCli } from "./run-cli.js";

/** Runs the CLI in its own process with `env` added (the policy limits' variables). */
const ricochetWith = (env: Record<string, string>, ...args: string[]): Promise<CliResult> =>
  runCli(args, { env });

const ricochet = (...args: string[]): Promise<CliResult> => ricochetWith({}, ...args);

describe("ricochet policy explain", () => {
  it("prints the ceilings and window of a no-jitter policy as one JSON object", async () => {
    const result = await ricochet(
      "policy",
      "explain",
      "--base",
      "5",
      "--max-delay",
      "300",
      "--max-attempts",
      "9",
      "--jitter",
      "none",
      "--json",
    );
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const output = JSON.parse(lines[0] ?? "");
    expect(Object.keys(output)).toEqual([
      "policy",
      "retries",
      "totalMaxSeconds",
      "totalP50Seconds",
      "limits",
      "withinLimits",
      "adjustments",
      "retryWindow",
    ]);
    // The numbers are explainPolicy's (pinned in test/core/explain.test.ts): a no-jitter
    // schedule is the same for every sample, so the CLI must print exactly the library's.
    const policy = resolvePolicy(DEFAULT_POLICY, {
      baseDelaySeconds: 5,
      maxDelaySeconds: 300,
      maxAttempts: 9,
      jitter: "none",
    });
    const expected = explainPolicy(policy, { samples: 10, random: seededRandom(1) });
    expect(output.retries).toEqual(expected.retries);
    expect(output.totalMaxSeconds).toBe(expected.totalMaxSeconds);
    expect(output.retryWindow).toEqual({
      seconds: 915,
      retries: 8,
      thresholdSeconds: 60,
      short: false,
    });
    expect(output).toMatchObject({
      limits: { maxAttempts: 25, minBaseDelaySeconds: 1 },
      withinLimits: true,
      adjustments: [],
    });
    expect(output.policy).toMatchObject({
      maxAttempts: 9,
      baseDelaySeconds: 5,
      maxDelaySeconds: 300,
      jitter: "none",
    });
  });

  it("gives the same draws for the same seed and other draws for another", async () => {
    const args = ["policy", "explain", "--jitter", "full", "--samples", "200", "--json"];
    const [first, again, other] = await Promise.all([
      ricochet(...args, "--seed", "3"),
      ricochet(...args, "--seed", "3"),
      ricochet(...args, "--seed", "4"),
    ]);
    expect(first.stdout).toBe(again.stdout);
    expect(first.stdout).not.toBe(other.stdout);
  });

  it("prints a table and a one-line summary for people", async () => {
    const result = await ricochet("policy", "explain", "--max-attempts", "3", "--jitter", "equal");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("ceiling (s)");
    expect(result.stdout).toMatch(/│\s+2\s+│\s+10\s+│\s+5–10\s+│/);
    expect(result.stdout.trim().split("\n").at(-2)).toMatch(
      /^2 retries wait at most 15s in total; median \d+s over 10000 samples\.$/,
    );
  });

  it("warns on stderr that Celery's 7-second trap dead-letters through any outage longer than 7 s", async () => {
    const result = await ricochet(
      ...["policy", "explain", "--base", "1", "--max-attempts", "4", "--jitter", "none"],
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("3 retries wait at most 7s in total");
    expect(result.stderr).toBe(
      "ricochet: warning: the 3 retries wait at most 7 s in total, under 60 s: a target down for " +
        "longer than that dead-letters every event sent to it meanwhile; raise maxAttempts, " +
        "baseDelaySeconds or multiplier (--warn-below sets the threshold)\n",
    );
  });

  it.each([
    [["--warn-below", "5s"], false, 5],
    [["--warn-below", "0s"], false, 0],
    [["--warn-below", "2m", "--max-attempts", "8"], false, 120],
    [["--warn-below", "10m", "--max-attempts", "8"], true, 600],
  ])("judges the window against --warn-below: %j (short %s)", async (flags, short, threshold) => {
    const args = ["policy", "explain", "--base", "1", "--max-attempts", "4", "--jitter", "none"];
    const [human, json] = await Promise.all([
      ricochet(...args, ...flags),
      ricochet(...args, ...flags, "--json"),
    ]);
    expect(human.stderr.includes("ricochet: warning:")).toBe(short);
    expect(json.stderr).toBe("");
    expect(JSON.parse(json.stdout).retryWindow).toMatchObject({
      short,
      thresholdSeconds: threshold,
    });
  });

  it("says in JSON that a policy outside the deployment's limits would be clamped, and how", async () => {
    const result = await ricochetWith(
      { RICOCHET_POLICY_LIMITS: JSON.stringify({ maxAttempts: 10, minBaseDelaySeconds: 2 }) },
      "policy",
      "explain",
      ...["--max-attempts", "100", "--base", "0", "--max-delay", "60", "--json"],
    );
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout)).toMatchObject({
      policy: { maxAttempts: 100, baseDelaySeconds: 0 },
      limits: { maxAttempts: 10, minBaseDelaySeconds: 2 },
      withinLimits: false,
      adjustments: [
        "maxAttempts 100 lowered to the deployment's ceiling 10",
        "baseDelaySeconds 0 raised to the deployment's floor 2",
      ],
    });
  });

  it("prints the limits under the table, the flags winning over the environment", async () => {
    const within = await ricochet("policy", "explain", "--max-attempts", "3");
    expect(within.stdout.trim().split("\n").at(-1)).toBe(
      "Limits: maxAttempts at most 25, baseDelaySeconds at least 1: within them.",
    );
    const outside = await ricochetWith(
      { RICOCHET_POLICY_LIMITS: JSON.stringify({ maxAttempts: 10 }) },
      ...["policy", "explain", "--max-attempts", "3", "--limit-max-attempts", "2"],
    );
    expect(outside.stdout.trim().split("\n").slice(-2)).toEqual([
      "Limits: maxAttempts at most 2, baseDelaySeconds at least 1: outside them; an event asking for this policy is clamped:",
      "  - maxAttempts 3 lowered to the deployment's ceiling 2",
    ]);
  });

  describe("the Lambda error-type lists", () => {
    const explainArgs = ["policy", "explain", "--max-attempts", "3"];

    it.each<[string[], string]>([
      [
        ["--no-retry-error-types", "TypeError,OrderGone"],
        "Lambda function errors of type TypeError, OrderGone are never retried: the event is rejected at once; other unhandled errors are retried.",
      ],
      [
        ["--retry-only-error-types", "Busy", "--retry-only-error-types", "Sandbox.Timedout"],
        "Lambda function errors are retried only when of type Busy, Sandbox.Timedout: any other unhandled error, or one without a type, rejects the event at once.",
      ],
    ])("says under the policy line what %j means", async (flags, meaning) => {
      const result = await ricochet(...explainArgs, ...flags);
      expect(result.code).toBe(0);
      expect(result.stdout.split("\n").slice(0, 2)).toEqual([
        "maxAttempts 3, base 5s, multiplier 2, maxDelay 900s, jitter full",
        meaning,
      ]);
    });

    it("keeps the lists in the JSON policy, empty when no flag names them", async () => {
      const [given, none] = await Promise.all([
        ricochet(...explainArgs, "--no-retry-error-types", " OrderGone , TypeError", "--json"),
        ricochet(...explainArgs, "--json"),
      ]);
      expect(JSON.parse(given.stdout).policy).toMatchObject({
        noRetryErrorTypes: ["OrderGone", "TypeError"],
        retryOnlyErrorTypes: [],
      });
      expect(JSON.parse(none.stdout).policy).toMatchObject({
        noRetryErrorTypes: [],
        retryOnlyErrorTypes: [],
      });
      expect(none.stdout).not.toContain("Lambda function errors");
    });
  });

  it.each([
    [["--jitter", "random"], "Allowed choices are full, equal, decorrelated, none"],
    [["--limit-max-attempts", "0"], "invalid policy limits: maxAttempts: must be at least 1"],
    [["--limit-min-base", "0.5"], "invalid policy limits: minBaseDelaySeconds: must be a whole"],
    [["--base", "-5"], "--base"],
    [["--base", "five"], "must be a number of at least 0"],
    [["--multiplier", "NaN"], "--multiplier"],
    [["--samples", "0"], "--samples"],
    [["--warn-below", "60"], "--warn-below"],
    [["--max-attempts", "2.5"], "invalid retry policy: maxAttempts: must be a whole number"],
    [
      ["--base", "60", "--max-delay", "30"],
      "invalid retry policy: baseDelaySeconds: must not exceed maxDelaySeconds (30)",
    ],
    [["--multiplier", "0.5"], "invalid retry policy: multiplier: must be at least 1"],
    [["--no-such-flag"], "unknown option '--no-such-flag'"],
    [
      ["--no-retry-error-types", "A", "--retry-only-error-types", "B"],
      "invalid retry policy: retryOnlyErrorTypes: cannot be set together with noRetryErrorTypes (A)",
    ],
    [
      ["--no-retry-error-types", "RicochetRetryError"],
      "noRetryErrorTypes.0: is a verdict the function gives, not an error to classify",
    ],
    [["--retry-only-error-types", "Busy,"], "retryOnlyErrorTypes.1: must not be empty"],
  ])("rejects %j with one line on stderr and exit code 2", async (flags, fragment) => {
    const result = await ricochet("policy", "explain", ...flags);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(fragment);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr.startsWith("ricochet: ")).toBe(true);
  });
});

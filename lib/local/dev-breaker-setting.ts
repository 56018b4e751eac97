import { ENV } from "../contract/environment.js";
import type { BreakerSettings } from "../core/circuit-breaker.js";
import { readBreakerSetting } from "../runtime/config.js";

/** The flag of `ricochet dev` (`npm start -- --circuit-breaker on`) that sets the breakers. */
export const BREAKER_FLAG = "--circuit-breaker";

/** A breakers setting a local run applies over the template's, and on whose word. */
export interface BreakerOverride {
  /** Spelled as `RICOCHET_CIRCUIT_BREAKER` is: `on`, `off` or JSON overrides of the defaults. */
  readonly value: string;
  /** Completes "circuit breakers … by", for the banner and errors. */
  readonly source: string;
}

/**
 * What a local run sets the breakers to, beyond the template (`cdk.json`'s `circuitBreaker`):
 * the flag, else `RICOCHET_CIRCUIT_BREAKER` in `npm start`'s environment, else nothing. The
 * setting is the functions' variable, read by the functions' own reader, so a local run accepts
 * exactly what a deployment does.
 * @throws ConfigurationError for a value that is not `on`, `off` or valid JSON settings: a typo
 * must not leave the breakers silently as they were.
 */
export const breakerOverride = (sources: {
  readonly flag: string | undefined;
  readonly env: NodeJS.ProcessEnv;
}): BreakerOverride | undefined => {
  const given = [
    { value: sources.flag, source: BREAKER_FLAG },
    {
      value: sources.env[ENV.CIRCUIT_BREAKER],
      source: `${ENV.CIRCUIT_BREAKER} in the environment`,
    },
  ].find((candidate) => candidate.value !== undefined && candidate.value.trim() !== "");
  if (given?.value === undefined) return undefined;
  readBreakerSetting(given.value, given.source);
  return { value: given.value.trim(), source: given.source };
};

const seconds = (ms: number): string => `${ms / 1000} s`;

/** The banner's word on the breakers the orchestrator runs with. */
export const describeBreakers = (settings: BreakerSettings | undefined): string =>
  settings === undefined
    ? `off (${BREAKER_FLAG} on, or ${ENV.CIRCUIT_BREAKER}=on, turns them on)`
    : `on: a target opens at ${Math.round(settings.failureRateThreshold * 100)}% failed of at least ` +
      `${settings.minimumCalls} calls in ${seconds(settings.windowMs)}, for ` +
      `${seconds(settings.openMs)} up to ${seconds(settings.maxOpenMs)}`;

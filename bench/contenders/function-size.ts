import { RETRY_ORCHESTRATOR_DEFAULTS } from "../../lib/infra/retry-orchestrator-props.js";

/**
 * The function every contender deploys: Ricochet's construct defaults (timeout, memory, arm64).
 * The baselines get the same size, so their Lambda bills differ only by what they do: duration
 * is billed per GB-s and a function's CPU share grows with its memory.
 */
export const FUNCTION_SIZE = {
  timeoutSeconds: RETRY_ORCHESTRATOR_DEFAULTS.functionTimeout.toSeconds(),
  memoryMb: RETRY_ORCHESTRATOR_DEFAULTS.memorySize,
} as const;

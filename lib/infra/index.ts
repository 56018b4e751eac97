/**
 * Ricochet's public entry point for CDK apps (`ricochet/infra`): the construct, its props and
 * encryption choice, the stack `cdk deploy` builds from this repository, for apps that want it
 * whole, and the error both throw on invalid configuration.
 */

export { DEFAULT_STACK_NAME, STACK_OUTPUTS } from "../contract/stack-outputs.js";
/** What the construct and the stack throw on invalid props or context, and its base class. */
export { ConfigurationError, RicochetError } from "../core/errors.js";
export type { ResourceOverrides } from "./resource-overrides.js";
export { RetryOrchestrator, TABLE_KEYS } from "./retry-orchestrator.js";
export {
  type CircuitBreakerProps,
  OrchestratorEncryption,
  RETRY_ORCHESTRATOR_DEFAULTS,
  type RetryOrchestratorProps,
  type TargetSettingsProps,
  type TargetsProps,
} from "./retry-orchestrator-props.js";
export { RicochetStack, type RicochetStackProps } from "./ricochet-stack.js";
export { SHORT_RETRY_WINDOW_WARNING } from "./short-retry-window-warning.js";

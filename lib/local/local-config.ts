import { ENV } from "../contract/environment.js";
import { loadConfig, type RicochetConfig } from "../runtime/config.js";

/** The resources a local run created for itself (tests, chaos, benchmarks). */
export interface LocalResources {
  readonly tableName: string;
  readonly ingressQueueUrl: string;
  readonly internalQueueUrl: string;
  readonly deadLetterQueueUrl: string;
}

/**
 * Ricochet's configuration for resources created locally, with loopback allowed as a target:
 * local receivers listen on 127.0.0.1, which deployed targets may not reach. `env` adds or
 * overrides variables (e.g. `RICOCHET_HOP_SECONDS`).
 */
export const localConfig = (
  resources: LocalResources,
  env: NodeJS.ProcessEnv = {},
): RicochetConfig =>
  loadConfig({
    [ENV.TABLE_NAME]: resources.tableName,
    [ENV.INGRESS_QUEUE_URL]: resources.ingressQueueUrl,
    [ENV.INTERNAL_QUEUE_URL]: resources.internalQueueUrl,
    [ENV.DEAD_LETTER_QUEUE_URL]: resources.deadLetterQueueUrl,
    [ENV.ALLOWED_TARGET_HOSTS]: "127.0.0.1",
    ...env,
  });

import { setTimeout as sleep } from "node:timers/promises";
import type { RedriveDeps } from "../app/operator/redrive-deps.js";
import type { RicochetConfig } from "./config.js";
import type { RicochetPorts } from "./create-ports.js";

/**
 * What a redrive run in this process needs, over a session's ports and configuration: the
 * `npm start` demo, the smoke check and the tests redrive this way. The operator function wires
 * its own, per invocation (lib/runtime/operator-function-deps.ts).
 */
export const inProcessRedriveDeps = (
  ports: Pick<RicochetPorts, "store" | "ingress" | "deadLetters">,
  config: Pick<RicochetConfig, "defaultPolicy" | "policyLimits">,
): RedriveDeps => ({
  deadLetterQueue: ports.deadLetters,
  ingressQueue: ports.ingress,
  store: ports.store,
  clock: Date.now,
  sleep: (ms) => sleep(ms),
  defaultPolicy: config.defaultPolicy,
  policyLimits: config.policyLimits,
});

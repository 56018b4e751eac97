import { setTimeout as sleep } from "node:timers/promises";
import { createStsCallerIdentity } from "../adapters/sts-caller-identity.js";
import { type RunningConsole, startConsole } from "../console/console-server.js";
import { CallerSource } from "../core/record.js";
import type { DevSession } from "../local/dev-session.js";
import { CONSOLE_BY } from "./console-command.js";

/** Seconds between refreshes of the event list under `npm start`: the emulators are free to read. */
const DEV_REFRESH_SECONDS = 2;

/**
 * The web console over the local session's own ports and configuration, for `npm start`: what
 * `ricochet console` would show against the same resources.
 */
export const startDevConsole = (session: DevSession): Promise<RunningConsole> =>
  startConsole({
    store: session.ports.store,
    deadLetterQueue: session.ports.deadLetters,
    ingressQueue: session.ports.ingress,
    targetState: session.ports.targetState,
    callerIdentity: createStsCallerIdentity({
      sts: session.clients.sts,
      source: CallerSource.OPERATOR,
    }),
    defaultPolicy: session.config.defaultPolicy,
    policyLimits: session.config.policyLimits,
    breakers: session.config.circuitBreaker,
    by: CONSOLE_BY,
    clock: Date.now,
    sleep: (ms) => sleep(ms),
    refreshSeconds: DEV_REFRESH_SECONDS,
  });

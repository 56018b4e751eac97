import { setTimeout as sleep } from "node:timers/promises";
import type { Command } from "commander";
import type { ConsoleDeps } from "../console/console-deps.js";
import { withAwsSession } from "./aws-session.js";
import { parsePositiveWholeNumber } from "./cli-support.js";
import { defaultPolicyFromEnv } from "./deployment-from-env.js";
import { policyLimitsFromEnv } from "./policy-limits-from-env.js";
import { addResourceOptions, type ResourceFlags } from "./resources.js";
import { breakerSettingsFromEnv } from "./targets-command.js";
import { untilSignal } from "./until-signal.js";

/** Who the console's audit entries say asked, unless `--by` names someone. */
export const CONSOLE_BY = "console";
/** Seconds between refreshes of the event list against a deployment (each one reads the table). */
const DEPLOYED_REFRESH_SECONDS = 10;

interface ConsoleFlags extends ResourceFlags {
  readonly port?: number;
  readonly by?: string;
}

/** The deployment settings the console shares with the CLI's commands, from the same variables. */
const consoleSettingsFromEnv = (
  by: string | undefined,
): Pick<ConsoleDeps, "defaultPolicy" | "policyLimits" | "breakers" | "by"> => ({
  defaultPolicy: defaultPolicyFromEnv(),
  policyLimits: policyLimitsFromEnv(),
  breakers: breakerSettingsFromEnv(),
  by: by?.trim() || CONSOLE_BY,
});

/**
 * `ricochet console`: a web console on 127.0.0.1 over the operator's own credentials, until
 * Ctrl-C. Its actions are the CLI's library calls, audited the same way.
 */
export const registerConsoleCommand = (program: Command): void => {
  const command = program
    .command("console")
    .description(
      "Serve a local web console on 127.0.0.1 (events, attempts, dead letters, redrive, targets) " +
        "with your credentials; open the address it prints, token included.",
    )
    .option("--port <n>", "listen on this port (default: any free one)", parsePositiveWholeNumber)
    .option("--by <name>", `who asks, for audit entries (default "${CONSOLE_BY}")`);
  addResourceOptions(command).action(async (flags: ConsoleFlags) => {
    const signal = untilSignal();
    // Loaded on use: the web server is no cost to the other commands' start-up.
    const { startConsole } = await import("../console/console-server.js");
    await withAwsSession(
      ["ingressQueueUrl", "internalQueueUrl", "deadLetterQueueUrl", "tableName"],
      flags,
      async (session) => {
        const running = await startConsole(
          {
            store: session.store(),
            deadLetterQueue: session.deadLetterQueue(),
            ingressQueue: session.ingressQueue(),
            targetState: session.targetState(),
            callerIdentity: session.callerIdentity(),
            clock: Date.now,
            sleep: (ms) => sleep(ms),
            refreshSeconds: DEPLOYED_REFRESH_SECONDS,
            ...consoleSettingsFromEnv(flags.by),
          },
          { port: flags.port },
        );
        process.stdout.write(`Ricochet console: ${running.url}\nPress Ctrl-C to stop.\n`);
        await signal.promise;
        await running.close();
      },
    );
  });
};

import type { Command } from "commander";
import { type CancelReport, cancelEvents } from "../app/operator/cancel.js";
import { parseCancelRequest } from "../app/operator/operator-request.js";
import { withAwsSession } from "./aws-session.js";
import { recordRetentionSecondsFromEnv } from "./deployment-from-env.js";
import {
  addOperatorActionOptions,
  finishOperatorAction,
  identityFromFlags,
  type OperatorActionFlags,
  type OperatorActionView,
} from "./operator-action.js";

const cancelView = (report: CancelReport): OperatorActionView => ({
  done: "cancelled",
  wouldDo: "would cancel",
  rows: report.cancelled.map((c) => ({ eventId: c.eventId, detail: `was ${c.previousStatus}` })),
});

/**
 * `ricochet cancel <eventId…>`: withdraws events still waiting (pending, scheduled, or waiting
 * for a retry). Their messages are dropped when they arrive; a delivered, finished or in-flight
 * event is refused with the reason, and the exit code is 3 when any was.
 */
export const registerCancelCommand = (program: Command): void => {
  const command = program
    .command("cancel")
    .description(
      "Cancel events still waiting for an attempt (pending, scheduled, retry_scheduled), with an audit entry.",
    )
    .argument("<eventId...>", "the events to cancel");
  addOperatorActionOptions(command).action(
    async (eventIds: string[], flags: OperatorActionFlags) => {
      const retentionSeconds = recordRetentionSecondsFromEnv();
      // Checked before any AWS call, so a bad argument costs nothing.
      const request = parseCancelRequest({
        action: "cancel",
        eventIds,
        ...identityFromFlags(flags),
      });
      const report = await withAwsSession(["tableName"], flags, (session) =>
        cancelEvents(
          {
            store: session.store(),
            clock: Date.now,
            retentionSeconds,
            callerIdentity: session.callerIdentity(),
          },
          request,
        ),
      );
      finishOperatorAction(report, { json: flags.json, view: cancelView });
    },
  );
};

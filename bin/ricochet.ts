#!/usr/bin/env node
import { registerCancelCommand } from "../lib/cli/cancel-command.js";
import { createProgram, ExitCode, runProgram } from "../lib/cli/cli-support.js";
import { registerConsoleCommand } from "../lib/cli/console-command.js";
import { registerDevCommand } from "../lib/cli/dev-command.js";
import { registerDlqCommands } from "../lib/cli/dlq-command.js";
import { registerEventsCommand } from "../lib/cli/events-command.js";
import { registerPolicyCommands } from "../lib/cli/policy-command.js";
import { registerRedriveCommand } from "../lib/cli/redrive-command.js";
import { registerReplayCommand } from "../lib/cli/replay-command.js";
import { registerStatusCommand } from "../lib/cli/status-command.js";
import { registerSubmitCommand } from "../lib/cli/submit-command.js";
import { registerTargetsCommand } from "../lib/cli/targets-command.js";
import { packageVersion } from "../lib/contract/package-layout.js";

/*
 * The operator CLI. Each command group lives in lib/cli/<group>-command.ts and exports one
 * register function; add yours to the list below and touch nothing else here.
 */

// The SDK's multi-line Node-version notice would break the CLI's one-line-error contract, and
// clutter `npm start`; an operator can still opt back in by setting the variable to "false".
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const program = createProgram(packageVersion());

registerPolicyCommands(program);
registerSubmitCommand(program);
registerStatusCommand(program);
registerEventsCommand(program);
registerDlqCommands(program);
registerRedriveCommand(program);
registerCancelCommand(program);
registerReplayCommand(program);
registerTargetsCommand(program);
registerConsoleCommand(program);
registerDevCommand(program);

const exitCode = await runProgram(program, process.argv);
// A command may set its own non-zero process.exitCode (e.g. "not found"); keep it unless we failed.
if (exitCode !== ExitCode.OK) process.exitCode = exitCode;

import { createRequire } from "node:module";
import { createProgram, runProgram } from "../lib/cli/cli-support.js";
import { registerPolicyCommands } from "../lib/cli/policy-command.js";

/*
 * The operator CLI. Each command group lives in lib/cli/<group>-command.ts and exports one
 * register function; add yours to the list below and touch nothing else here.
 */

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };
const program = createProgram(version);

registerPolicyCommands(program);
// registerSubmitCommand(program);
// registerStatusCommand(program);
// registerDevCommand(program);

process.exitCode = await runProgram(program, process.argv);

import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { EMULATOR_ENV } from "../support/emulator-gaps.js";
import { motoProblem, startMoto } from "./start-moto.js";

/*
 * `npm run test:moto [-- vitest args]`: every integration test against moto, a second AWS
 * implementation, through the same AWS_ENDPOINT_URL path a LocalStack user takes. moto is started
 * here on loopback and stopped by its process group whatever happens (a failed run, Ctrl-C).
 * Tests that pin a detail moto does not implement skip themselves by name, with the reason
 * (test/support/emulator-gaps.ts); everything else must pass.
 */

const problem = await motoProblem();
if (problem !== undefined) {
  console.error(`test:moto: ${problem}`);
  process.exit(1);
}

const started = performance.now();
const moto = await startMoto();
console.log(`test:moto: moto at ${moto.endpoint}`);

const vitest = spawn(
  "npx",
  ["vitest", "run", "--project", "integration", ...process.argv.slice(2)],
  {
    stdio: "inherit",
    env: { ...process.env, AWS_ENDPOINT_URL: moto.endpoint, [EMULATOR_ENV]: "moto" },
  },
);
const forward = (signal: NodeJS.Signals) => () => vitest.kill(signal);
process.on("SIGINT", forward("SIGINT"));
process.on("SIGTERM", forward("SIGTERM"));

const code = await new Promise<number>((resolve) => {
  vitest.on("error", () => resolve(1));
  vitest.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 130)));
});
await moto.stop();
console.log(
  `test:moto: ${code === 0 ? "passed" : "failed"} in ${Math.round((performance.now() - started) / 1000)} s`,
);
process.exit(code);

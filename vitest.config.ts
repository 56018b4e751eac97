import { defineConfig } from "vitest/config";

/*
 * Three projects; `npm test` runs them all.
 * - `unit` (`npm run test:unit`): pure and in-process tests, loopback servers at most. No emulator
 *   is started, and the files share worker threads without isolation: they hold no global
 *   state, and the loop stays well under a minute.
 * - `infra`: the CDK construct synthesized in-process. Bundling the functions spawns esbuild,
 *   which needs a real process's stdio, and aws-cdk-lib keeps per-module state the older-version
 *   test swaps, so these run in isolated forks.
 * - `integration`: every `*.integration.test.ts`. They talk to the SQS and DynamoDB emulators
 *   the global setup starts (or to AWS_ENDPOINT_URL), run child processes, or build and install
 *   the package.
 */
/*
 * The AWS SDK prints a notice about its future Node.js requirement once per process on Node
 * below 22, and a run has dozens of processes and workers. It is printed here, once, and turned
 * off for every process the run starts (they inherit this environment).
 */
const SDK_NOTICE_OFF = "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED";
if (process.env[SDK_NOTICE_OFF] === undefined) {
  if (Number(process.versions.node.split(".")[0]) < 22) {
    console.warn(
      `note: the AWS SDK for JavaScript says its versions published after the first week of January 2027 require Node.js >= 22; this is Node.js ${process.versions.node} (its per-process notice is off for this run)`,
    );
  }
  process.env[SDK_NOTICE_OFF] = "true";
}

const INTEGRATION = "test/**/*.integration.test.ts";
const INFRA = "test/infra/**/*.test.ts";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [INTEGRATION, INFRA],
          pool: "threads",
          isolate: false,
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "infra",
          include: [INFRA],
          exclude: [INTEGRATION],
          testTimeout: 60_000,
          // Building a construct bundles its functions, in the files' beforeAll: on a loaded
          // machine that takes longer than the default 10 s a hook is given.
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "integration",
          include: [INTEGRATION],
          globalSetup: ["test/setup/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});

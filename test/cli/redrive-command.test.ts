import { afterEach, describe, expect, it } from "vitest";
import { createProgram, ExitCode, runProgram } from "../../lib/cli/cli-support.js";
import { registerRedriveCommand } from "../../lib/cli/redrive-command.js";

const program = () => {
  const root = createProgram("0.0.0");
  registerRedriveCommand(root);
  return root;
};

const run = async (args: readonly string[]) => {
  let stderr = "";
  const code = await runProgram(program(), ["node", "ricochet", "redrive", ...args], {
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stderr };
};

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

/** What the `npm start` banner has a shell export: SQS and DynamoDB emulated, no Lambda. */
const exportLocalSession = () => {
  for (const name of Object.keys(process.env))
    if (name.startsWith("AWS_ENDPOINT_URL")) delete process.env[name];
  process.env.AWS_ENDPOINT_URL_SQS = "http://127.0.0.1:9";
  process.env.AWS_ENDPOINT_URL_DYNAMODB = "http://127.0.0.1:9";
  process.env.AWS_REGION = "us-east-1";
  process.env.AWS_ACCESS_KEY_ID = "ricochetlocal";
  process.env.AWS_SECRET_ACCESS_KEY = "ricochetlocal";
};

describe("ricochet redrive", () => {
  it("says in its help that redrives go to the internal queue", () => {
    const help =
      program()
        .commands.find((c) => c.name() === "redrive")
        ?.helpInformation() ?? "";
    expect(help).toContain("internal queue");
    expect(help).not.toContain("ingress queue,");
  });

  it.each([[["--function"]], [["--function", "ricochet-redrive"]]])(
    "refuses %j against the local emulators, saying what to run instead",
    async (flags) => {
      exportLocalSession();
      const { code, stderr } = await run([...flags, "--event-id", "e-1", "--why", "test"]);
      expect(code).toBe(ExitCode.USAGE);
      expect(stderr).toMatch(/^ricochet: there is no operator function locally/);
      expect(stderr).toContain("run `ricochet redrive` without --function");
      expect(stderr.trim().split("\n")).toHaveLength(1);
    },
  );
});

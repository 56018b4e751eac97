import { describe, expect, it } from "vitest";
import { createProgram, ExitCode, runProgram } from "../../lib/cli/cli-support.js";
import { registerReplayCommand } from "../../lib/cli/replay-command.js";
import { registerSubmitCommand } from "../../lib/cli/submit-command.js";

const run = async (args: readonly string[]) => {
  const program = createProgram("0.0.0");
  registerSubmitCommand(program);
  registerReplayCommand(program);
  let stderr = "";
  const code = await runProgram(program, ["node", "ricochet", ...args], {
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stderr };
};

describe("submit --file and replay --file", () => {
  it.each([
    ["submit", "--file", "/nonexistent/envelope.json"],
    ["replay", "e-1", "--file", "/nonexistent/envelope.json"],
  ])("refuse a missing file as a bad argument, in one line: %s", async (...args) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(ExitCode.USAGE);
    expect(stderr).toBe(
      "ricochet: cannot read --file /nonexistent/envelope.json: no such file or directory\n",
    );
  });

  it("refuses a directory given as the file", async () => {
    const { code, stderr } = await run(["submit", "--file", "/tmp"]);
    expect(code).toBe(ExitCode.USAGE);
    expect(stderr).toBe("ricochet: cannot read --file /tmp: it is a directory\n");
  });
});

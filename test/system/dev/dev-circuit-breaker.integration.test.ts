import { describe, expect, it } from "vitest";
import { ENV } from "../../../lib/contract/environment.js";
import { exited, spawnDev, startDev } from "./dev-process.js";

/** What a child wrote on stderr by its exit, and its exit code. */
const runToExit = async (args: readonly string[], env: NodeJS.ProcessEnv) => {
  const child = spawnDev(args, env);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return { code: await exited(child), stderr };
};

describe("npm start's circuit breakers", () => {
  it("turns them on from RICOCHET_CIRCUIT_BREAKER in its environment, and says so", async () => {
    const dev = await startDev(["--no-demo"], { [ENV.CIRCUIT_BREAKER]: "on" });
    try {
      expect(dev.banner).toMatch(/circuit breakers\s+on: a target opens at 50% failed/);
      expect(dev.banner).toContain(
        `circuit breakers set to on by ${ENV.CIRCUIT_BREAKER} in the environment`,
      );
      // So that `ricochet targets` in the producer's shell says what the orchestrator runs with.
      expect(dev.banner).toContain(`export ${ENV.CIRCUIT_BREAKER}='on'`);
    } finally {
      dev.child.kill("SIGINT");
      await exited(dev.child);
    }
  }, 120_000);

  it.each([
    [
      ["--no-demo"],
      { [ENV.CIRCUIT_BREAKER]: "yes" },
      /RICOCHET_CIRCUIT_BREAKER in the environment must be on, off/,
    ],
    [["--no-demo", "--circuit-breaker", "yes"], {}, /--circuit-breaker must be on, off/],
  ])(
    "refuses %j %j before starting anything, in one line",
    async (args, env, message) => {
      const { code, stderr } = await runToExit(args, env);
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(stderr.trim().split("\n")).toHaveLength(1);
    },
    60_000,
  );
});

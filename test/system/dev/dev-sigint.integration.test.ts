import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { exited, startDev } from "./dev-process.js";

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const isFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

describe("ricochet dev --no-demo", () => {
  it("stops its emulators and frees their ports on SIGINT", async () => {
    const { child, banner: stdout } = await startDev(["--no-demo"]);
    const pids = (/emulator pids\s+([\d, ]+)/.exec(stdout)?.[1] ?? "")
      .split(",")
      .map((pid) => Number(pid.trim()))
      .filter((pid) => pid > 0);
    const ports = [...stdout.matchAll(/endpoint\s+http:\/\/127\.0\.0\.1:(\d+)/g)].map((m) =>
      Number(m[1]),
    );
    expect(stdout).toMatch(/circuit breakers\s+off \(--circuit-breaker on/);
    expect(pids.length).toBeGreaterThan(0);
    expect(ports).toHaveLength(2);
    expect(pids.every(isAlive)).toBe(true);

    child.kill("SIGINT");
    expect(await exited(child)).toBe(0);

    expect(pids.filter(isAlive)).toEqual([]);
    for (const port of ports) expect(await isFree(port)).toBe(true);
  }, 120_000);

  it("stops its pollers before the emulators on Ctrl-C, so no receive fails", async () => {
    // Ctrl-C signals the terminal's whole foreground job: ricochet and every child it started.
    const dev = await startDev(["--no-demo"], {}, { ownGroup: true });
    const pid = dev.child.pid as number;
    process.kill(-pid, "SIGINT");
    expect(await exited(dev.child)).toBe(0);

    expect(dev.stderr()).toContain("stopping Ricochet");
    expect(dev.stderr()).not.toContain("receive failed");
    expect(dev.stderr()).not.toContain("ECONNREFUSED");
  }, 120_000);
});

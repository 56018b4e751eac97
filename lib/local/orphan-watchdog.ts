import { type ChildProcess, spawn } from "node:child_process";
import { detachFromEventLoop, terminate } from "./process-control.js";

/** Kills a process if this one dies without stopping it. */
export interface OrphanWatchdog {
  readonly pid: number | undefined;
  /** Stands the watchdog down (the guarded process is being stopped normally). */
  dismiss(): Promise<void>;
}

/*
 * A detached shell blocks reading a pipe from this process. The pipe closes when this process
 * ends in any way, SIGKILL included, and the shell then kills the guarded process group. It
 * waits on the pipe rather than polling, so it costs nothing while idle and reacts at once.
 */
const WATCH_SCRIPT =
  'read _ignored; kill -KILL -- "-$0" 2>/dev/null || kill -KILL "$0" 2>/dev/null';

/**
 * Guards against orphans: Java (DynamoDB Local) does not notice its parent's death and would keep
 * running. `pid` should lead its own process group (a detached child) so its children go too.
 */
export const watchForOrphan = (pid: number): OrphanWatchdog => {
  const shell: ChildProcess = spawn("/bin/sh", ["-c", WATCH_SCRIPT, String(pid)], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  // An error here (no /bin/sh) leaves only the orphan risk; it must not crash the run.
  shell.on("error", () => undefined);
  detachFromEventLoop(shell);
  return {
    pid: shell.pid,
    // SIGTERM ends `read` without running the kill, which would otherwise hit a reused pid.
    dismiss: () => terminate(shell, { graceMs: 1_000 }),
  };
};

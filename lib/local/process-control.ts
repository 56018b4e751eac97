import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Socket } from "node:net";

/** Whether the child has exited (or was killed) already. */
export const hasExited = (child: ChildProcess): boolean =>
  child.exitCode !== null || child.signalCode !== null;

/** Resolves when the child exits, however it ends. */
export const exitOf = (child: ChildProcess): Promise<void> =>
  hasExited(child) ? Promise.resolve() : once(child, "exit").then(() => undefined);

const signal = (child: ChildProcess, name: NodeJS.Signals, group: boolean): void => {
  if (child.pid === undefined || hasExited(child)) return;
  try {
    // A negative pid addresses the whole process group of a detached child.
    process.kill(group ? -child.pid : child.pid, name);
  } catch {
    // Already gone: nothing to do.
  }
};

/**
 * Stops a child: SIGTERM, then SIGKILL after `graceMs`, and waits for its exit so no process
 * outlives the call. `group` kills a detached child's whole process group.
 */
export const terminate = async (
  child: ChildProcess,
  options: { group?: boolean; graceMs?: number } = {},
): Promise<void> => {
  if (hasExited(child)) return;
  // A detached-from-the-loop child would not keep this process alive until its exit event.
  child.ref();
  const group = options.group ?? false;
  const exited = exitOf(child);
  signal(child, "SIGTERM", group);
  const escalation = setTimeout(() => signal(child, "SIGKILL", group), options.graceMs ?? 5_000);
  escalation.unref();
  try {
    await exited;
  } finally {
    clearTimeout(escalation);
  }
};

/**
 * Lets this process exit while the child and its pipes are still open: the owner stops the child
 * explicitly, and a forgotten child must not hold a test run open after its summary. Call it once
 * the child is ready; while starting, its handles are what keep the caller's await alive.
 */
export const detachFromEventLoop = (child: ChildProcess): void => {
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    if (stream instanceof Socket) stream.unref();
  }
};

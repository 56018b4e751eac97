import { readFileSync } from "node:fs";

/**
 * Whether a pid runs, zombies excluded: an orphan killed after its parent died stays a zombie
 * until the machine's init reaps it, and it no longer holds a port or memory by then.
 */
export const isRunning = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The state letter follows the parenthesised command name, which may itself contain spaces.
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
};

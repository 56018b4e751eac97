import { execFile } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Where and when a bench run happened, so the figures it produced can be cited. */
export interface RunMetadata {
  /** The command as typed, e.g. `npm run bench -- --json`. */
  readonly command: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  /** The checkout's commit, `+dirty` when it had uncommitted changes. */
  readonly commit: string;
  readonly node: string;
  readonly cpus: number;
  /** One-minute load averages at the start and the end: how busy the shared machine was. */
  readonly loadAverage: { readonly atStart: number; readonly atEnd?: number };
}

const git = async (args: readonly string[]): Promise<string> =>
  (await run("git", [...args]).catch(() => ({ stdout: "" }))).stdout.trim();

/** Reads the metadata at the start of a run; `finished` completes it at the end. */
export const startRunMetadata = async (argv: readonly string[]): Promise<RunMetadata> => {
  const commit = (await git(["rev-parse", "--short", "HEAD"])) || "unknown";
  const dirty = (await git(["status", "--porcelain", "--untracked-files=no"])) !== "";
  return {
    command: ["npm run bench", ...(argv.length === 0 ? [] : ["--", ...argv])].join(" "),
    startedAt: new Date().toISOString(),
    commit: dirty ? `${commit}+dirty` : commit,
    node: process.version,
    cpus: cpus().length,
    loadAverage: { atStart: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
  };
};

export const finished = (metadata: RunMetadata): RunMetadata => ({
  ...metadata,
  finishedAt: new Date().toISOString(),
  loadAverage: {
    ...metadata.loadAverage,
    atEnd: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  },
});

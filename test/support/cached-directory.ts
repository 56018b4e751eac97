import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * A cache entry made once and then reused: `directory` if it exists, else filled by `fill` in a
 * scratch directory beside it and renamed into place. Test files run in parallel processes, so
 * concurrent callers each fill their own scratch directory and the first rename wins; the others'
 * work is discarded, never half-seen.
 * @returns `directory`, complete.
 */
export const cachedDirectory = async (
  directory: string,
  fill: (scratch: string) => Promise<void>,
): Promise<string> => {
  if (existsSync(directory)) return directory;
  await mkdir(dirname(directory), { recursive: true });
  // Unique even for two callers in one process within one millisecond.
  const scratch = await mkdtemp(`${directory}.`);
  try {
    await fill(scratch);
    await rename(scratch, directory).catch((error: unknown) => {
      // Another process filled the same entry first; its copy is as good as this one.
      if (!existsSync(directory)) throw error;
    });
    return directory;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
};

import { SingleBar } from "cli-progress";

/** A progress display on stderr, or nothing when stderr is not a terminal or output is JSON. */
export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

const silent: Progress = { update: () => undefined, stop: () => undefined };

/** Shows `label` with a bar on stderr, only for a person watching a terminal. */
export const createProgress = (label: string, options: { readonly json: boolean }): Progress => {
  if (options.json || process.stderr.isTTY !== true) return silent;
  const bar = new SingleBar({
    stream: process.stderr,
    format: `${label} [{bar}] {value}/{total}`,
    hideCursor: true,
    clearOnComplete: true,
  });
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total ?? done, done);
        started = true;
      }
      if (total !== undefined) bar.setTotal(total);
      else if (done > bar.getTotal()) bar.setTotal(done);
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
};

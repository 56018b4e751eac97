/** Resolves on the first SIGINT or SIGTERM; `received` says whether one came yet. */
export const untilSignal = (): { promise: Promise<string>; received: () => boolean } => {
  let got = false;
  const promise = new Promise<string>((resolve) => {
    const on = (signal: string) => {
      got = true;
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve(signal);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
  return { promise, received: () => got };
};

import type { CallerIdentity } from "./ports.js";
import { UNVERIFIED_CALLER } from "./record.js";

/**
 * The `caller` an audit entry records: what `identity` reports, or {@link UNVERIFIED_CALLER}
 * when it has no answer, or fails despite its contract, so the action never fails for it.
 */
export const auditCaller = async (identity: CallerIdentity): Promise<string> => {
  try {
    return (await identity()) ?? UNVERIFIED_CALLER;
  } catch {
    return UNVERIFIED_CALLER;
  }
};

/**
 * Asks `identity` at most once, on first use: a run that records nothing (a dry run, nothing
 * matched) makes no call, and one that records many makes one.
 */
export const onceCaller = (identity: CallerIdentity): (() => Promise<string>) => {
  let asked: Promise<string> | undefined;
  return () => {
    asked ??= auditCaller(identity);
    return asked;
  };
};

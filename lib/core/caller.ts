import { errorMessage } from "./errors.js";
import type { CallerIdentity } from "./ports.js";
import { type AuditCaller, CallerSource, type RecordedCaller } from "./record.js";

/**
 * The `caller` an audit entry records: what `identity` reports, or an unverified caller saying
 * why when the lookup throws despite its contract, so that the action never fails for it.
 */
export const auditCaller = async (identity: CallerIdentity): Promise<AuditCaller> => {
  try {
    return await identity.lookup();
  } catch (error) {
    const why = errorMessage(error);
    return { source: identity.source, unverified: `caller lookup failed: ${why}` };
  }
};

/**
 * Asks `identity` at most once, on first use: a run that records nothing (a dry run, nothing
 * matched) makes no call, and one that records many makes one.
 */
export const onceCaller = (identity: CallerIdentity): (() => Promise<AuditCaller>) => {
  let asked: Promise<AuditCaller> | undefined;
  return () => {
    asked ??= auditCaller(identity);
    return asked;
  };
};

/**
 * The `caller` field of every entry one run writes, spread into each: asked once (see
 * {@link onceCaller}); without an identity, no field, as in entries written before callers were.
 */
export const callerFieldOnce = (
  identity: CallerIdentity | undefined,
): (() => Promise<{ readonly caller?: AuditCaller }>) => {
  if (identity === undefined) return async () => ({});
  const caller = onceCaller(identity);
  return async () => ({ caller: await caller() });
};

const SOURCE_LABEL: Record<CallerSource, string> = {
  [CallerSource.OPERATOR]: "operator's credentials",
  [CallerSource.FUNCTION_ROLE]: "operator function's role",
};

/**
 * One line for tables: the ARN or why there is none, and whose credentials it names, e.g.
 * `arn:aws:iam::1:user/ana (operator's credentials)`, `unverified: no STS … (operator's
 * credentials)`; an older entry's string as it was stored, with no label, since it never said
 * whose credentials; empty for entries written before callers were recorded. Whoever prints
 * the line makes it inert as they do the entry's other fields (the CLI's tables do every cell).
 */
export const describeCaller = (caller: RecordedCaller | undefined): string => {
  if (caller === undefined) return "";
  if ("recorded" in caller) return caller.recorded;
  const who = "arn" in caller ? caller.arn : `unverified: ${caller.unverified}`;
  return `${who} (${SOURCE_LABEL[caller.source]})`;
};

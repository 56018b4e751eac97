import type { CallerIdentity } from "../../lib/core/ports.js";
import { type AuditCaller, CallerSource } from "../../lib/core/record.js";

/** A verified operator, as the STS adapter would map GetCallerIdentity's answer. */
export const ANA_CALLER: AuditCaller = {
  source: CallerSource.OPERATOR,
  arn: "arn:aws:iam::123456789012:user/ana",
  account: "123456789012",
  userId: "AIDAEXAMPLEANA",
};

/**
 * A {@link CallerIdentity} answering `answer` (or throwing what it throws), counting its lookups:
 * for what uses the port, not for the STS adapter, which is tested against a stand-in STS.
 */
export const countingCallerIdentity = (
  answer: () => Promise<AuditCaller> = async () => ANA_CALLER,
) => {
  let lookups = 0;
  const identity: CallerIdentity = {
    source: CallerSource.OPERATOR,
    lookup: () => {
      lookups += 1;
      return answer();
    },
  };
  return { identity, lookups: () => lookups };
};

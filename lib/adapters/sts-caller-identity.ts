import type { STSClient } from "@aws-sdk/client-sts";
import type { CallerIdentity } from "../core/ports.js";
import type { AuditCaller, CallerSource } from "../core/record.js";
import { redactCredentials } from "../core/redact.js";

/** How long the lookup may take: an audit name is not worth holding an operator's action up. */
const CALLER_LOOKUP_TIMEOUT_MS = 5_000;

/**
 * Why nothing was asked when the clients have no STS (see `stsEndpointOf`): SQS or DynamoDB is
 * redirected, as to the local emulators, which have none, and STS is not.
 */
export const NO_STS_ENDPOINT =
  "not asked: SQS/DynamoDB endpoints are overridden (local emulators) and STS's is not " +
  "(AWS_ENDPOINT_URL_STS)";

/** Longest STS error text kept in a record: enough to tell expired from refused from unreachable. */
const MAX_REASON_LENGTH = 200;

export interface StsCallerIdentityOptions {
  /** The STS client, or undefined where there is no STS to ask (the local emulators). */
  readonly sts: () => Promise<STSClient | undefined>;
  /** Whose credentials the client signs with: the operator's, or the operator function's role. */
  readonly source: CallerSource;
  readonly timeoutMs?: number | undefined;
}

const errorText = (error: unknown): string => {
  const text =
    error instanceof Error ? `${error.name}: ${error.message}` : `unknown error: ${String(error)}`;
  return redactCredentials(text).slice(0, MAX_REASON_LENGTH);
};

/**
 * The caller as STS's GetCallerIdentity reports it: the principal whose credentials sign this
 * process's calls. It needs no IAM permission, and it is AWS's word, not the caller's: the answer
 * is bound to the request's signature. Every failure (no STS, no network, expired or dummy
 * credentials, a timeout) is an unverified caller naming the failure, never an error.
 */
export const createStsCallerIdentity = ({
  sts,
  source,
  timeoutMs = CALLER_LOOKUP_TIMEOUT_MS,
}: StsCallerIdentityOptions): CallerIdentity => ({
  source,
  lookup: async (): Promise<AuditCaller> => {
    const unverified = (why: string): AuditCaller => ({ source, unverified: why });
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const client = await sts();
      if (client === undefined) return unverified(NO_STS_ENDPOINT);
      const { GetCallerIdentityCommand } = await import("@aws-sdk/client-sts");
      const { Arn, Account, UserId } = await client.send(new GetCallerIdentityCommand({}), {
        abortSignal: signal,
      });
      if (!Arn || !Account || !UserId) {
        return unverified("STS answered GetCallerIdentity without an ARN, account or user id");
      }
      return { source, arn: Arn, account: Account, userId: UserId };
    } catch (error) {
      return unverified(
        signal.aborted
          ? `no answer from STS within ${timeoutMs} ms`
          : `STS GetCallerIdentity failed: ${errorText(error)}`,
      );
    }
  },
});

import type { STSClient } from "@aws-sdk/client-sts";
import type { CallerIdentity } from "../core/ports.js";

/** How long the lookup may take: an audit name is not worth holding an operator's action up. */
export const CALLER_LOOKUP_TIMEOUT_MS = 5_000;

export interface StsCallerIdentityOptions {
  /** The STS client, or undefined where there is no STS to ask (local emulators). */
  readonly sts: () => Promise<STSClient | undefined>;
  readonly timeoutMs?: number | undefined;
}

/**
 * The caller as STS's GetCallerIdentity reports it: the ARN of the principal whose credentials
 * sign this process's calls. It needs no permission, and it is AWS's word, not the caller's: the
 * answer is bound to the request's signature. Any failure (no STS, no network, expired or
 * dummy credentials, a timeout) is undefined, never an error: see {@link CallerIdentity}.
 */
export const createStsCallerIdentity =
  ({ sts, timeoutMs = CALLER_LOOKUP_TIMEOUT_MS }: StsCallerIdentityOptions): CallerIdentity =>
  async () => {
    try {
      const client = await sts();
      if (client === undefined) return undefined;
      const { GetCallerIdentityCommand } = await import("@aws-sdk/client-sts");
      const answer = await client.send(new GetCallerIdentityCommand({}), {
        abortSignal: AbortSignal.timeout(timeoutMs),
      });
      return answer.Arn === undefined || answer.Arn === "" ? undefined : answer.Arn;
    } catch {
      return undefined;
    }
  };

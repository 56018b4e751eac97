import type { IncomingMessage } from "node:http";
import { StringDecoder } from "node:string_decoder";
import { type AttemptResult, storedExcerpt } from "../../core/outcome.js";

/** What was read of a response's body: its chunks (the bound and a little past it) and their size. */
export interface BodyRead {
  readonly chunks: readonly Buffer[];
  readonly received: number;
}

/**
 * A response as the attempt's result: its status, `Retry-After`, and an excerpt of the body cut
 * at `maxExcerpt` bytes with the request's secrets blanked.
 */
export const responseResult = (
  res: IncomingMessage,
  body: BodyRead,
  maxExcerpt: number,
  secrets: readonly string[],
  elapsed: () => number,
): AttemptResult => {
  const decoder = new StringDecoder("utf8");
  // The decoder holds back a multi-byte character cut by the bound instead of mangling it.
  const read = decoder.write(Buffer.concat(body.chunks).subarray(0, maxExcerpt));
  // Unless the whole body fits, the bound (or a timeout, or a reset) may have cut a secret
  // in two: the part that was read is blanked as well.
  const cutShort = res.complete !== true || body.received > maxExcerpt;
  const excerpt = storedExcerpt(read, { secrets, cutShort });
  const retryAfter = res.headers["retry-after"];
  return {
    kind: "response",
    statusCode: res.statusCode ?? 0,
    retryAfter: typeof retryAfter === "string" ? retryAfter : undefined,
    bodyExcerpt: excerpt === "" ? undefined : excerpt,
    durationMs: elapsed(),
  };
};

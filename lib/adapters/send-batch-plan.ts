/**
 * How messages waiting to be sent are grouped into `SendMessageBatch` requests: pure, so the
 * limits can be checked without timers or a queue.
 */

/** Limits on one `SendMessageBatch` request. */
export interface SendBatchLimits {
  /** Entries per request: SQS allows 10. */
  readonly maxEntries: number;
  /** Payload of all entries together (bodies and attributes, as SQS counts them). */
  readonly maxBytes: number;
}

/**
 * SQS's limits. The payload limit is the long-standing 256 KiB of a batch: a larger single
 * message still goes alone through `SendMessage`, which takes up to 1 MiB.
 */
export const SQS_SEND_BATCH_LIMITS: SendBatchLimits = { maxEntries: 10, maxBytes: 256 * 1024 };

/** What to do with one more message, given the batch being gathered. */
export const BatchStep = {
  /** Too large for any batch: send it by itself, leave the gathered batch as it is. */
  ALONE: "alone",
  /** It would push the batch past its payload limit: send the batch, then start a new one with it. */
  FLUSH_THEN_ADD: "flush_then_add",
  /** Add it and keep gathering. */
  ADD: "add",
  /** Add it: the batch is then full, send it now. */
  ADD_THEN_FLUSH: "add_then_flush",
} as const;
export type BatchStep = (typeof BatchStep)[keyof typeof BatchStep];

/** The batch being gathered, as far as its limits are concerned. */
export interface GatheredBatch {
  readonly entries: number;
  readonly bytes: number;
}

/** Decides where a message of `bytes` goes; `limits.maxEntries` must be at least 2. */
export const admitToBatch = (
  gathered: GatheredBatch,
  bytes: number,
  limits: SendBatchLimits = SQS_SEND_BATCH_LIMITS,
): BatchStep => {
  if (bytes > limits.maxBytes) return BatchStep.ALONE;
  if (gathered.entries > 0 && gathered.bytes + bytes > limits.maxBytes) {
    return BatchStep.FLUSH_THEN_ADD;
  }
  return gathered.entries + 1 >= limits.maxEntries ? BatchStep.ADD_THEN_FLUSH : BatchStep.ADD;
};

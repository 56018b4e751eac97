/** What a handler's answer means for the messages of its batch. */
export type BatchVerdict =
  /** Delete `succeeded`; leave `failed` to reappear after the visibility timeout. */
  | {
      readonly kind: "partial";
      readonly succeeded: readonly string[];
      readonly failed: readonly string[];
    }
  /** The whole batch failed: delete nothing. */
  | { readonly kind: "batch_failed"; readonly reason: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Reads a handler's response as Lambda's SQS event source mapping does with
 * `ReportBatchItemFailures`: no response, or no or an empty `batchItemFailures`, is full success;
 * each listed `itemIdentifier` is a failure; an identifier that is missing, empty or not a message
 * of the batch, or a response of any other shape, fails the whole batch, since nothing can be
 * safely deleted on its word.
 */
export const readBatchResponse = (
  messageIds: readonly string[],
  response: unknown,
): BatchVerdict => {
  if (response === undefined || response === null) {
    return { kind: "partial", succeeded: [...messageIds], failed: [] };
  }
  if (!isRecord(response)) {
    return { kind: "batch_failed", reason: `response is a ${typeof response}, not an object` };
  }
  const failures = response.batchItemFailures;
  if (failures === undefined || failures === null) {
    return { kind: "partial", succeeded: [...messageIds], failed: [] };
  }
  if (!Array.isArray(failures)) {
    return { kind: "batch_failed", reason: "batchItemFailures is not a list" };
  }
  const inBatch = new Set(messageIds);
  const failed = new Set<string>();
  for (const failure of failures) {
    const id: unknown = isRecord(failure) ? failure.itemIdentifier : undefined;
    if (typeof id !== "string" || id === "") {
      return { kind: "batch_failed", reason: "a batch item failure has no itemIdentifier" };
    }
    if (!inBatch.has(id)) {
      return { kind: "batch_failed", reason: `itemIdentifier ${id} is not a message of the batch` };
    }
    failed.add(id);
  }
  return {
    kind: "partial",
    succeeded: messageIds.filter((id) => !failed.has(id)),
    failed: messageIds.filter((id) => failed.has(id)),
  };
};

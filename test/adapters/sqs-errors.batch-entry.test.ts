import { describe, expect, it } from "vitest";
import { translateSqsBatchEntryFailure } from "../../lib/adapters/sqs-errors.js";
import { QueueUnavailableError } from "../../lib/core/errors.js";

const call = { operation: "SendMessageBatch", queueUrl: "http://127.0.0.1:1/000000000000/q" };

describe("a failed batch entry, translated", () => {
  it.each([
    { failure: { Code: "InvalidMessageContents", SenderFault: true }, transient: false },
    { failure: { Code: "InvalidParameterValue", SenderFault: true }, transient: false },
    { failure: { Code: "InternalError", SenderFault: false }, transient: true },
    { failure: { Code: "ServiceUnavailable" }, transient: true },
    // Throttling may be reported as the sender's fault; it still passes if tried again.
    { failure: { Code: "RequestThrottled", SenderFault: true }, transient: true },
  ])(
    "$failure.Code (sender's fault: $failure.SenderFault) is transient: $transient",
    ({ failure, transient }) => {
      const error = translateSqsBatchEntryFailure({ ...failure, Message: "why" }, call);
      expect(error).toBeInstanceOf(QueueUnavailableError);
      expect(error.message).toBe(`SQS SendMessageBatch failed: ${failure.Code}: why`);
      expect(error.context).toMatchObject({ ...call, transient });
    },
  );
});

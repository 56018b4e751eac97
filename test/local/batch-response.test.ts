import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readBatchResponse } from "../../lib/local/batch-response.js";

const ids = ["m1", "m2", "m3"];

describe("readBatchResponse", () => {
  it.each([
    ["no response", undefined],
    ["a null response", null],
    ["an empty object", {}],
    ["a null failure list", { batchItemFailures: null }],
    ["an empty failure list", { batchItemFailures: [] }],
  ])("treats %s as full success", (_label, response) => {
    expect(readBatchResponse(ids, response)).toEqual({
      kind: "partial",
      succeeded: ids,
      failed: [],
    });
  });

  it("keeps exactly the listed messages and deletes the rest", () => {
    expect(readBatchResponse(ids, { batchItemFailures: [{ itemIdentifier: "m2" }] })).toEqual({
      kind: "partial",
      succeeded: ["m1", "m3"],
      failed: ["m2"],
    });
  });

  it.each([
    ["a string", "ok"],
    ["a number", 1],
    ["a list", []],
    ["a failure list that is not a list", { batchItemFailures: "m1" }],
    ["a failure without itemIdentifier", { batchItemFailures: [{}] }],
    ["an empty itemIdentifier", { batchItemFailures: [{ itemIdentifier: "" }] }],
    ["a null itemIdentifier", { batchItemFailures: [{ itemIdentifier: null }] }],
    ["an unknown itemIdentifier", { batchItemFailures: [{ itemIdentifier: "other" }] }],
    ["a failure that is not an object", { batchItemFailures: ["m1"] }],
  ])("fails the whole batch for %s", (_label, response) => {
    expect(readBatchResponse(ids, response).kind).toBe("batch_failed");
  });

  it("splits any batch into disjoint succeeded and failed parts covering it", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 20 }),
        fc.infiniteStream(fc.boolean()),
        (batch, picks) => {
          const failing = batch.filter(() => picks.next().value);
          const verdict = readBatchResponse(batch, {
            batchItemFailures: failing.map((itemIdentifier) => ({ itemIdentifier })),
          });
          if (verdict.kind !== "partial") return false;
          expect(new Set(verdict.failed)).toEqual(new Set(failing));
          expect([...verdict.succeeded, ...verdict.failed].sort()).toEqual([...batch].sort());
          return verdict.succeeded.every((id) => !failing.includes(id));
        },
      ),
    );
  });

  it("never deletes anything when one identifier is foreign to the batch", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 10 }),
        fc.uuid(),
        (batch, foreign) => {
          fc.pre(!batch.includes(foreign));
          const verdict = readBatchResponse(batch, {
            batchItemFailures: [...batch.slice(1), foreign].map((itemIdentifier) => ({
              itemIdentifier,
            })),
          });
          return verdict.kind === "batch_failed";
        },
      ),
    );
  });
});

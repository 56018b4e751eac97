import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compactCurrentAttempt,
  compactEntry,
  currentAttemptFromItem,
  entryFromItem,
} from "../../lib/adapters/dynamo-compact-entry.js";
import { OutcomeClass } from "../../lib/core/outcome.js";
import type { AttemptEntry } from "../../lib/core/record.js";
import { anAttemptEntry, FIXED_NOW_MS } from "../support/factories.js";

const isoAt = (ms: number) => new Date(ms).toISOString();

/** Entries as the attempt code builds them: times from the clock, as ISO strings. */
const entries = fc
  .record({
    attempt: fc.integer({ min: 0, max: 100 }),
    worker: fc.string({ minLength: 1, maxLength: 50 }),
    claimedMs: fc.integer({ min: 0, max: 4_102_444_800_000 }),
    sentAfter: fc.option(fc.integer({ min: -5_000, max: 900_000 }), { nil: undefined }),
    finishedAfter: fc.integer({ min: -5_000, max: 900_000 }),
    outcome: fc.constantFrom(...Object.values(OutcomeClass)),
    statusCode: fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
    errorCategory: fc.option(fc.constantFrom("timeout", "connection", "dns"), { nil: undefined }),
    message: fc.string({ maxLength: 256 }),
    delaySeconds: fc.option(fc.integer({ min: 0, max: 86_400 }), { nil: undefined }),
    traceId: fc.option(fc.stringMatching(/^[0-9a-f]{32}$/), { nil: undefined }),
  })
  .map(
    (e): AttemptEntry =>
      Object.fromEntries(
        Object.entries({
          attempt: e.attempt,
          worker: e.worker,
          claimedAt: isoAt(e.claimedMs),
          sentAt: e.sentAfter === undefined ? undefined : isoAt(e.claimedMs + e.sentAfter),
          finishedAt: isoAt(e.claimedMs + e.finishedAfter),
          outcome: e.outcome,
          statusCode: e.statusCode,
          errorCategory: e.errorCategory,
          message: e.message,
          delaySeconds: e.delaySeconds,
          traceId: e.traceId,
        }).filter(([, v]) => v !== undefined),
      ) as unknown as AttemptEntry,
  );

describe("compact history entries", () => {
  it("read back exactly as the entry that was stored", () => {
    fc.assert(
      fc.property(entries, (entry) => {
        expect(entryFromItem({ ...compactEntry(entry) })).toEqual(entry);
      }),
    );
  });

  it("store an attempt's trace id under one letter, and nothing for an untraced attempt", () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    expect(compactEntry(anAttemptEntry({ traceId }))).toMatchObject({ t: traceId });
    expect(compactEntry(anAttemptEntry({}))).not.toHaveProperty("t");
  });

  it("are less than half the size of the long form for a typical retry", () => {
    const entry = anAttemptEntry({ worker: "w-AbCdEfGhIjKl", delaySeconds: 1 });
    const long = JSON.stringify(entry).length;
    const compact = JSON.stringify(compactEntry(entry)).length;
    expect(compact).toBeLessThan(long / 2);
  });

  it("read entries in the long form older releases stored, unchanged", () => {
    const old = anAttemptEntry({ worker: "worker-0b8f7c1e-4d2a-4c55-9a43-6f2f0d6f1a11" });
    expect(entryFromItem({ ...old })).toEqual(old);
  });

  it("keep an entry whose claim time is not a date in the long form rather than lose it", () => {
    const odd = anAttemptEntry({ claimedAt: "not a date" });
    expect(compactEntry(odd)).toEqual(odd);
    expect(entryFromItem({ ...compactEntry(odd) })).toEqual(odd);
  });
});

describe("the stored in-flight attempt", () => {
  it.each([
    {
      form: "compact",
      stored: compactCurrentAttempt("w-1", FIXED_NOW_MS),
      read: { worker: "w-1", claimedAt: isoAt(FIXED_NOW_MS) },
    },
    {
      form: "long (older releases)",
      stored: { worker: "worker-1", claimedAt: isoAt(FIXED_NOW_MS) },
      read: { worker: "worker-1", claimedAt: isoAt(FIXED_NOW_MS) },
    },
    { form: "absent", stored: undefined, read: undefined },
    { form: "incomplete", stored: { worker: "worker-1" }, read: undefined },
  ])("reads from the $form form", ({ stored, read }) => {
    expect(currentAttemptFromItem(stored)).toEqual(read);
  });
});

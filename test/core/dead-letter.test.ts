import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cutToBytes,
  DEAD_LETTER_KIND,
  DEAD_LETTER_VERSION,
  type DeadLetterMessage,
  fitDeadLetter,
  MAX_SUMMARY_BYTES,
} from "../../lib/core/dead-letter.js";
import { MAX_ENVELOPE_BYTES, MAX_MESSAGE_BYTES, utf8Bytes } from "../../lib/core/envelope.js";

const aCopy = (overrides: Partial<DeadLetterMessage> = {}): DeadLetterMessage => ({
  kind: DEAD_LETTER_KIND,
  version: DEAD_LETTER_VERSION,
  reason: "rejected",
  eventId: "e-1",
  body: '{"eventId":"e-1"}',
  attempts: 1,
  generation: 0,
  lastOutcome: { class: "permanent", statusCode: 400, message: "HTTP 400" },
  deadLetteredAt: "2030-01-01T00:00:00.000Z",
  ...overrides,
});

/** JSON number spellings that re-serialise to something longer or shorter than written. */
const aNumberToken = () =>
  fc.oneof(
    fc.constantFrom("1e20", "1e+16", "-0", "1E308", "0.1000000000000000055511151231257827"),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => n.toExponential()),
  );
/** Text that escapes differently when re-serialised: quotes, backslashes, controls, multi-byte. */
const aStringToken = () =>
  fc
    .string({ unit: fc.constantFrom("a", '"', "\\", "\n", "\u0001", "é", "€", "💥", "\u2028") })
    .map((s) => JSON.stringify(s));

/** A body of `count` copies of one token in an array: the shape that grows most when re-read. */
const aBodyNear = (limit: number) =>
  fc
    .tuple(fc.oneof(aNumberToken(), aStringToken()), fc.integer({ min: 0, max: 64 }))
    .map(([token, slack]) => {
      const head = '{"eventId":"e-1","payload":[';
      const room = limit - utf8Bytes(head) - 2 - slack;
      const count = Math.max(0, Math.floor(room / (utf8Bytes(token) + 1)));
      return `${head}${Array.from({ length: count }, () => token).join(",")}]}`;
    });

describe("fitDeadLetter", () => {
  it("keeps any body up to the envelope limit byte for byte, and the copy fits SQS", () => {
    fc.assert(
      fc.property(aBodyNear(MAX_ENVELOPE_BYTES), (body) => {
        const fitted = fitDeadLetter(aCopy({ body }));
        expect(fitted.body).toBe(body);
        expect(fitted.summary.bodyTruncated).toBeUndefined();
        const bytes = utf8Bytes(fitted.body) + utf8Bytes(JSON.stringify(fitted.summary));
        expect(bytes).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
      }),
      { numRuns: 40 },
    );
  });

  it("cuts only a body over the limit, says so, and still fits", () => {
    fc.assert(
      fc.property(aBodyNear(MAX_MESSAGE_BYTES + 10_000), (body) => {
        fc.pre(utf8Bytes(body) > MAX_MESSAGE_BYTES - MAX_SUMMARY_BYTES);
        const fitted = fitDeadLetter(aCopy({ reason: "invalid_envelope", body }));
        expect(body.startsWith(fitted.body)).toBe(true);
        expect(fitted.summary.bodyTruncated).toBe(true);
        const bytes = utf8Bytes(fitted.body) + utf8Bytes(JSON.stringify(fitted.summary));
        expect(bytes).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
      }),
      { numRuns: 20 },
    );
  });

  it("bounds the summary however many and however long the problems are", () => {
    const problems = Array.from({ length: 500 }, (_, i) => ({
      path: `payload.${i}`,
      message: "x".repeat(5_000),
    }));
    const { summary } = fitDeadLetter(aCopy({ reason: "invalid_envelope", problems }));
    expect(utf8Bytes(JSON.stringify(summary))).toBeLessThanOrEqual(MAX_SUMMARY_BYTES);
    expect(summary.problems?.length).toBeGreaterThan(0);
  });
});

describe("cutToBytes", () => {
  it("returns the longest prefix within the limit that splits no character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.nat(200), (text, max) => {
        const cut = cutToBytes(text, max);
        expect(text.startsWith(cut)).toBe(true);
        expect(utf8Bytes(cut)).toBeLessThanOrEqual(max);
        // No lone surrogate: it would encode as U+FFFD (3 bytes) and SQS refuses it.
        expect(Buffer.from(cut, "utf8").toString("utf8")).toBe(cut);
        const next = text.slice(cut.length, cut.length + 2);
        if (next !== "") {
          const oneMore = text.codePointAt(cut.length) ?? 0;
          expect(utf8Bytes(cut) + utf8Bytes(String.fromCodePoint(oneMore))).toBeGreaterThan(max);
        }
      }),
    );
  });
});

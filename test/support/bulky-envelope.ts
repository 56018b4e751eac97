import { MAX_ENVELOPE_BYTES, type Target, utf8Bytes } from "../../lib/core/envelope.js";

/*
 * The largest valid envelope a producer may send, full of numbers whose JSON text changes when it
 * is parsed and written again: `1e20` grows to 21 digits, `-0` becomes `0`, a long decimal is cut
 * to 17 significant digits. A dead-letter copy or a redrive that re-serialised such a body grew
 * it past SQS's limit; one that normalised it changed the producer's bytes.
 */

/** Number literals as a producer may write them, none as JavaScript would write it back. */
const NUMBER_TEXTS = [
  "1e20",
  "1e+16",
  "-0",
  "0.1000000000000000055511151231257827",
  "1E21",
  "123456789.12345678912345678",
  "-2.5e-300",
  "1e20",
] as const;

/** Which event the bulky envelope is, and how large it may be. */
export interface BulkyEnvelopeOptions {
  readonly eventId: string;
  readonly target: Target;
  /** Largest body to make; default {@link MAX_ENVELOPE_BYTES}, the largest valid envelope. */
  readonly maxBytes?: number;
}

/**
 * The raw body (not an object: `JSON.stringify` would normalise the numbers) of a valid envelope
 * of at most `maxBytes`, less than one more number short of it, with one attempt and a payload of
 * number literals stamped with its id (`payload.origin`, as every simulated event's is).
 */
export const bulkyEnvelopeBody = (options: BulkyEnvelopeOptions): string => {
  const maxBytes = options.maxBytes ?? MAX_ENVELOPE_BYTES;
  const head =
    `{"eventId":${JSON.stringify(options.eventId)},"target":${JSON.stringify(options.target)},` +
    `"policy":{"maxAttempts":1},"payload":{"origin":${JSON.stringify(options.eventId)},"numbers":[`;
  const tail = "]}}";
  const items: string[] = [];
  // Every literal is ASCII, so its length is its size; each but the first adds a comma.
  let size = utf8Bytes(head) + tail.length - 1;
  for (let i = 0; ; i += 1) {
    const item = NUMBER_TEXTS[i % NUMBER_TEXTS.length] as string;
    if (size + 1 + item.length > maxBytes) break;
    items.push(item);
    size += 1 + item.length;
  }
  return `${head}${items.join(",")}${tail}`;
};

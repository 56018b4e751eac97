/*
 * The size DynamoDB bills an item by, from its attributes as the document client returns them,
 * following "DynamoDB item sizes and formats" in the DynamoDB developer guide
 * (CapacityUnitCalculations). JSON text overstates it: every name is quoted, and a 13-digit epoch
 * time is 13 bytes of text but 8 of DynamoDB number. The bench bills storage by this size, for
 * every contender alike.
 */

const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/** A number: one byte per two significant digits (leading and trailing zeros trimmed), plus one. */
const numberBytes = (value: number | bigint): number => {
  const digits = String(value)
    .replace(/e.*$/i, "")
    .replace(/[^0-9]/g, "")
    .replace(/^0+/, "")
    .replace(/0+$/, "");
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
};

/** A List or Map costs 3 bytes, plus one for each element on top of the element's own size. */
const CONTAINER_BYTES = 3;
const ELEMENT_BYTES = 1;

/** The size of one attribute value, without its name. */
export const dynamoValueBytes = (value: unknown): number => {
  if (typeof value === "string") return utf8Bytes(value);
  if (typeof value === "number" || typeof value === "bigint") return numberBytes(value);
  if (typeof value === "boolean" || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    return [...value].reduce((sum: number, element) => sum + dynamoValueBytes(element), 0);
  }
  if (Array.isArray(value)) {
    return value.reduce(
      (sum: number, element) => sum + ELEMENT_BYTES + dynamoValueBytes(element),
      CONTAINER_BYTES,
    );
  }
  if (typeof value === "object" && value !== undefined) {
    return Object.entries(value).reduce(
      (sum, [name, element]) =>
        element === undefined
          ? sum
          : sum + ELEMENT_BYTES + utf8Bytes(name) + dynamoValueBytes(element),
      CONTAINER_BYTES,
    );
  }
  throw new TypeError(`DynamoDB stores no ${typeof value}`);
};

/** The size of an item: each attribute's name and value (without the per-item storage overhead). */
export const dynamoItemBytes = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce(
    (sum, [name, value]) =>
      value === undefined ? sum : sum + utf8Bytes(name) + dynamoValueBytes(value),
    0,
  );

/*
 * What the signing secret's value holds. Standard Webhooks keys are `whsec_<base64>`, HMAC keys of
 * 24 to 64 bytes; several, separated by white space, are all signed with (rotation: the receiver
 * trusts whichever it has). Before Standard Webhooks, the whole value was the key of the
 * `Ricochet-Signature` header, used as UTF-8 text: that "legacy" key is still read, so that an
 * upgrade changes nothing for receivers that verify the old header. It is the one key of the
 * value without the `whsec_` prefix, or, when every key has the prefix, the whole value as before.
 * Messages never quote a key: they end up in records and logs.
 */

const PREFIX = "whsec_";
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The keys a deployment signs with. */
export interface SigningKeys {
  /** Standard Webhooks keys (decoded), each signing `webhook-signature`; empty: none configured. */
  readonly standard: readonly Buffer[];
  /** The key of the legacy `Ricochet-Signature` header, as text. */
  readonly legacy: string;
}

export type SigningKeysResult =
  | { readonly ok: true; readonly keys: SigningKeys }
  | { readonly ok: false; readonly message: string };

/** The key a `whsec_` text stands for, or why it is not one. `position` names it in messages. */
export const decodeStandardKey = (text: string, position: string): Buffer | string => {
  const encoded = text.slice(PREFIX.length);
  if (!text.startsWith(PREFIX) || encoded === "" || !BASE64.test(encoded)) {
    return `${position} is not whsec_ followed by base64`;
  }
  const key = Buffer.from(encoded, "base64");
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    return `${position} is ${key.length} bytes; a Standard Webhooks key is ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`;
  }
  return key;
};

/** True for a text meant as a Standard Webhooks key (it may still be malformed). */
export const isStandardKeyText = (text: string): boolean => text.startsWith(PREFIX);

/** Reads the signing secret's value ({@link SigningKeys}). */
export const parseSigningKeys = (value: string): SigningKeysResult => {
  if (value.trim() === "") return { ok: false, message: "the signing secret is empty" };
  const tokens = value.trim().split(/\s+/);
  const standardTexts = tokens.filter(isStandardKeyText);
  const oldKind = { ok: true, keys: { standard: [], legacy: value } } as const;
  // No whsec_ key: the value is a key of the old kind, whole, white space included, as before.
  if (standardTexts.length === 0) return oldKind;
  // An old key may have been written whsec_<anything>: a lone one that is no Standard Webhooks
  // key keeps signing the old header as before, instead of stopping every delivery.
  const [only] = tokens;
  if (
    tokens.length === 1 &&
    only !== undefined &&
    typeof decodeStandardKey(only, "") === "string"
  ) {
    return oldKind;
  }
  const standard: Buffer[] = [];
  for (const [index, text] of standardTexts.entries()) {
    const key = decodeStandardKey(text, `whsec_ key ${index + 1}`);
    if (typeof key === "string") return { ok: false, message: `the signing secret's ${key}` };
    standard.push(key);
  }
  const others = tokens.filter((token) => !isStandardKeyText(token));
  if (others.length > 1) {
    return {
      ok: false,
      message: `the signing secret holds ${others.length} keys without the whsec_ prefix; at most one (the legacy key) may stay beside whsec_ keys`,
    };
  }
  const legacy = others[0] ?? value;
  // One key for both schemes would let a legacy signature stand for a Standard Webhooks one.
  if (standard.some((key) => key.equals(Buffer.from(legacy, "utf8")))) {
    return { ok: false, message: "the legacy key and a whsec_ key must differ" };
  }
  return { ok: true, keys: { standard, legacy } };
};

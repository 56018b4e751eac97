import fc from "fast-check";
import { MAX_DELAY_LIMIT_SECONDS, type RetryPolicy } from "../../lib/core/policy.js";
import { REDACTED } from "../../lib/core/redact.js";
import { aPolicy } from "../support/factories.js";

/** Any policy `resolvePolicy` accepts (without status overrides), for property tests. */
export const aValidPolicy = (): fc.Arbitrary<RetryPolicy> =>
  fc
    .record({
      maxAttempts: fc.integer({ min: 1, max: 100 }),
      baseDelaySeconds: fc.integer({ min: 0, max: 3600 }),
      extraMaxDelay: fc.integer({ min: 0, max: MAX_DELAY_LIMIT_SECONDS - 3600 }),
      multiplier: fc.double({ min: 1, max: 10, noNaN: true }),
      jitter: fc.constantFrom("full", "equal", "decorrelated", "none" as const),
      maxRetryAfterSeconds: fc.integer({ min: 0, max: MAX_DELAY_LIMIT_SECONDS }),
    })
    .map(({ extraMaxDelay, ...fields }) =>
      aPolicy({ ...fields, maxDelaySeconds: fields.baseDelaySeconds + extraMaxDelay }),
    );

/** Any value a RandomSource may return: [0, 1). */
export const aRandomValue = (): fc.Arbitrary<number> =>
  fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

/** Characters of credentials (base64, base64url, RFC 6750 tokens): what secrets are made of. */
const SECRET_CHARS = [
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  ..."+/=-._~",
];

/** A credential-like secret, 8 to 64 characters long. */
export const aSecret = (): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...SECRET_CHARS), minLength: 8, maxLength: 64 });

/**
 * Text around a secret that shares none of its characters (multi-byte and surrogate pairs
 * included), so anything of the secret found in a result came from the secret.
 */
export const aFiller = (maxLength = 300): fc.Arbitrary<string> =>
  fc.string({
    unit: fc.constantFrom(" ", ",", ":", '"', "{", "}", "\n", "é", "€", "😀"),
    maxLength,
  });

/** Whether 8 consecutive characters of `secret` are left in `text` outside redaction markers. */
export const leaksPartOf = (text: string, secret: string): boolean =>
  text
    .split(REDACTED)
    .some((fragment) =>
      Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8)).some((part) =>
        fragment.includes(part),
      ),
    );

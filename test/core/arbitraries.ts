import fc from "fast-check";
import { MAX_DELAY_LIMIT_SECONDS, type RetryPolicy } from "../../lib/core/policy.js";
import { aPolicy } from "../factories.js";

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

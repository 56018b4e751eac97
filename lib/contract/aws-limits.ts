/*
 * AWS service limits Ricochet designs around, named once: the construct validates props against
 * them and the functions clamp to them at run time.
 */

/** SQS's ceiling on one message's delay. */
export const MAX_SQS_DELAY_SECONDS = 900;

/** SQS's ceiling on a message's visibility timeout (12 hours). */
export const MAX_SQS_VISIBILITY_TIMEOUT_SECONDS = 43_200;

/** SQS's bounds on how long a queue keeps a message (1 minute to 14 days). */
export const MIN_SQS_RETENTION_SECONDS = 60;
export const MAX_SQS_RETENTION_SECONDS = 14 * 24 * 3600;

/** Lambda's ceiling on a function's timeout. */
export const MAX_LAMBDA_TIMEOUT_SECONDS = 900;

/*
 * AWS service limits Ricochet designs around, named once: the construct validates props against
 * them and the functions clamp to them at run time.
 */

/** SQS's ceiling on one message's delay. */
export const MAX_SQS_DELAY_SECONDS = 900;

/** SQS's ceiling on a message's visibility timeout (12 hours). */
export const MAX_SQS_VISIBILITY_TIMEOUT_SECONDS = 43_200;

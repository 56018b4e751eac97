/*
 * AWS list prices (us-east-1, on-demand, as of 2026-11) used to turn the measured counts into a
 * bill. Change them here when AWS does; BENCHMARKS.md states the same formula.
 */

/** Dollars per million SQS standard requests (a batch of up to 10 is one request per 64 KB). */
export const SQS_USD_PER_MILLION_REQUESTS = 0.4;
/** Dollars per million DynamoDB on-demand write request units. */
export const DYNAMODB_USD_PER_MILLION_WRITE_UNITS = 0.625;
/** Dollars per million DynamoDB on-demand read request units. */
export const DYNAMODB_USD_PER_MILLION_READ_UNITS = 0.125;

/** What one delivered event costs in requests and units, as the benchmark counts them. */
export interface PerEventUsage {
  readonly sqsRequests: number;
  readonly dynamoWriteUnits: number;
  readonly dynamoReadUnits: number;
}

/** The SQS and DynamoDB bill for a million delivered events, in dollars (Lambda not included). */
export const usdPerMillionEvents = (usage: PerEventUsage): number =>
  usage.sqsRequests * SQS_USD_PER_MILLION_REQUESTS +
  usage.dynamoWriteUnits * DYNAMODB_USD_PER_MILLION_WRITE_UNITS +
  usage.dynamoReadUnits * DYNAMODB_USD_PER_MILLION_READ_UNITS;

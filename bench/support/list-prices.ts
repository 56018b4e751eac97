/*
 * AWS list prices (us-east-1, on-demand, as of 2026-11) used to turn the measured counts into a
 * bill. Change them here when AWS does; BENCHMARKS.md prints them from here.
 */

/** Dollars per million SQS standard requests (each 64 KiB of a request's payload is one). */
export const SQS_USD_PER_MILLION_REQUESTS = 0.4;
/** Dollars per million DynamoDB on-demand write request units. */
export const DYNAMODB_USD_PER_MILLION_WRITE_UNITS = 0.625;
/** Dollars per million DynamoDB on-demand read request units. */
export const DYNAMODB_USD_PER_MILLION_READ_UNITS = 0.125;
/** Dollars per GB-month of DynamoDB Standard table storage. */
export const DYNAMODB_USD_PER_GB_MONTH = 0.25;
/** Dollars per GB-month of continuous backups (point-in-time recovery), on the table's size. */
export const DYNAMODB_PITR_USD_PER_GB_MONTH = 0.2;
/** DynamoDB bills 100 bytes of overhead per stored item on top of its attributes. */
export const DYNAMODB_ITEM_OVERHEAD_BYTES = 100;
/** Dollars per million Lambda invocations. */
export const LAMBDA_USD_PER_MILLION_REQUESTS = 0.2;
/** Dollars per GB-second of Lambda duration, by architecture. */
export const LAMBDA_USD_PER_GB_SECOND = { arm64: 0.0000133334, x86_64: 0.0000166667 } as const;

/** Storage bills by the GB-month; a month here is 30 days. */
const SECONDS_PER_MONTH = 30 * 86_400;
const BYTES_PER_GB = 1e9;

/** What one delivered event costs in requests, units, storage and Lambda time. */
export interface PerEventUsage {
  /** SQS requests as billed (64 KiB chunks). */
  readonly sqsRequests: number;
  readonly dynamoWriteUnits: number;
  readonly dynamoReadUnits: number;
  /** Bytes the event leaves stored (items and their overhead) while its records are kept. */
  readonly storedBytes?: number;
  /** How long those bytes stay: the table's TTL. */
  readonly retentionSeconds?: number;
  readonly pointInTimeRecovery?: boolean;
  readonly lambdaInvocations?: number;
  /** Billed Lambda milliseconds per event. */
  readonly lambdaBilledMs?: number;
  readonly memoryMb?: number;
  readonly architecture?: keyof typeof LAMBDA_USD_PER_GB_SECOND;
}

/** A million delivered events' bill, in dollars, by line and in total. */
export interface Bill {
  readonly sqs: number;
  readonly dynamoWrites: number;
  readonly dynamoReads: number;
  readonly dynamoStorage: number;
  readonly lambdaRequests: number;
  readonly lambdaDuration: number;
  readonly total: number;
}

/** The bill for a million delivered events, every line AWS would charge for this work. */
export const billPerMillionEvents = (usage: PerEventUsage): Bill => {
  const gbMonths =
    ((usage.storedBytes ?? 0) / BYTES_PER_GB) * ((usage.retentionSeconds ?? 0) / SECONDS_PER_MONTH);
  const storagePrice =
    DYNAMODB_USD_PER_GB_MONTH +
    (usage.pointInTimeRecovery === true ? DYNAMODB_PITR_USD_PER_GB_MONTH : 0);
  const gbSeconds = ((usage.lambdaBilledMs ?? 0) / 1000) * ((usage.memoryMb ?? 0) / 1024);
  const lines = {
    sqs: usage.sqsRequests * SQS_USD_PER_MILLION_REQUESTS,
    dynamoWrites: usage.dynamoWriteUnits * DYNAMODB_USD_PER_MILLION_WRITE_UNITS,
    dynamoReads: usage.dynamoReadUnits * DYNAMODB_USD_PER_MILLION_READ_UNITS,
    dynamoStorage: gbMonths * storagePrice * 1e6,
    lambdaRequests: (usage.lambdaInvocations ?? 0) * LAMBDA_USD_PER_MILLION_REQUESTS,
    lambdaDuration: gbSeconds * LAMBDA_USD_PER_GB_SECOND[usage.architecture ?? "arm64"] * 1e6,
  };
  return { ...lines, total: Object.values(lines).reduce((sum, line) => sum + line, 0) };
};

/** The SQS and DynamoDB request bill for a million delivered events, in dollars. */
export const usdPerMillionEvents = (usage: PerEventUsage): number => {
  const bill = billPerMillionEvents(usage);
  return bill.sqs + bill.dynamoWrites + bill.dynamoReads;
};

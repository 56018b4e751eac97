/**
 * The one region and dummy key pair every local client and child process uses. DynamoDB Local
 * keeps a separate database per key and region unless started with `-sharedDb`; fauxqs puts the
 * region into queue URLs and ARNs. Using the same values everywhere keeps all parties on one
 * set of data.
 */
export const LOCAL_REGION = "us-east-1";

/** DynamoDB Local 2.x and later reject access key ids that are not letters and digits only. */
export const LOCAL_CREDENTIALS = {
  accessKeyId: "ricochetlocal",
  secretAccessKey: "ricochetlocal",
} as const;

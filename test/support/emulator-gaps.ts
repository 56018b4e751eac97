import { it } from "vitest";

/**
 * Names the AWS implementation a run talks to when it is not the default pair (fauxqs and
 * DynamoDB Local, or AWS_ENDPOINT_URL's LocalStack). `npm run test:moto` sets it to `moto`.
 */
export const EMULATOR_ENV = "RICOCHET_TEST_EMULATOR";

/** `fauxqs`: the default run's SQS, started by the global setup when no AWS_ENDPOINT_URL is set. */
type Emulator = "moto" | "fauxqs";

/**
 * What an emulator does differently from AWS, each stated once with the reason. A test that pins
 * one of these details is skipped on that emulator only, with the reason in its name; on every
 * other run it asserts as before. Add a gap here only with evidence that the emulator, not
 * Ricochet, is what differs from AWS.
 */
const EMULATOR_GAPS = {
  consumedCapacityBySize: {
    moto: "moto reports 0.5 write capacity units for every UpdateItem, whatever the item's size",
  },
  nulBodyRefused: {
    moto: "moto accepts a message body with U+0000, which SQS refuses as an invalid character",
  },
  longPollWakesAtOnce: {
    moto: "moto wakes a waiting long poll only on its one-second tick, not when a message arrives",
  },
  awsTraceHeaderKept: {
    // Checked on fauxqs 1.9.x: SendMessage ignores MessageSystemAttributes, and ReceiveMessage
    // returns only SenderId, SentTimestamp and the receive counts; moto 5.2 returns the header.
    fauxqs:
      "fauxqs drops SendMessage's MessageSystemAttributes: ReceiveMessage never returns an AWSTraceHeader",
  },
} as const satisfies Record<string, Partial<Record<Emulator, string>>>;

export type EmulatorGap = keyof typeof EMULATOR_GAPS;

/*
 * Without AWS_ENDPOINT_URL the global setup starts fauxqs for SQS (test/setup/global-setup.ts).
 * A run that points only AWS_ENDPOINT_URL_SQS elsewhere is taken for fauxqs too: a gap's test is
 * then skipped there, never failed for the emulator's sake.
 */
const currentEmulator = (): Emulator | undefined => {
  if (process.env[EMULATOR_ENV] === "moto") return "moto";
  return process.env.AWS_ENDPOINT_URL === undefined ? "fauxqs" : undefined;
};

/** Why this run's emulator lacks `gap`, or undefined when the test should run. */
const gapReason = (gap: EmulatorGap): string | undefined => {
  const emulator = currentEmulator();
  if (emulator === undefined) return undefined;
  const reasons: Partial<Record<Emulator, string>> = EMULATOR_GAPS[gap];
  return reasons[emulator];
};

/**
 * `it`, skipped only on an emulator that lacks `gap`; the skipped test's name carries the reason,
 * so the run's report says what was not checked and why.
 */
export const itWhereEmulated = (
  gap: EmulatorGap,
  name: string,
  test: () => Promise<void> | void,
  timeout?: number,
): void => {
  const reason = gapReason(gap);
  const emulator = currentEmulator();
  if (reason === undefined) it(name, test, timeout);
  else it.skip(`${name} [skipped on ${emulator}: ${reason}]`, test, timeout);
};

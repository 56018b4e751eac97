import * as z from "zod";
import { ALL_STATUSES, type EventStatus } from "../../lib/core/status.js";
import { ALL_AWS_FAULTS, type AwsFault } from "./aws-fault-injector.js";

/** The environment variable that hands a worker its settings, as JSON. */
export const WORKER_SETTINGS_ENV = "RICOCHET_CHAOS_WORKER";

const WorkerSettingsSchema = z.strictObject({
  workerId: z.string().min(1),
  seed: z.int(),
  faultRate: z.number().min(0).max(1),
  /** Share of events whose first retry's result write fails (aimed, not random). */
  resultWriteFaultShare: z.number().min(0).max(1),
  /** Where the worker appends every claim it was granted, one JSON line each (claim-trace.ts). */
  claimTraceFile: z.string().min(1),
  endpoints: z.strictObject({ sqs: z.string().min(1), dynamodb: z.string().min(1) }),
  region: z.string().min(1),
  tableName: z.string().min(1),
  ingressQueueUrl: z.string().min(1),
  internalQueueUrl: z.string().min(1),
  deadLetterQueueUrl: z.string().min(1),
  leaseMarginMs: z.int().min(0),
  functionTimeoutMs: z.int().min(1),
  visibilityTimeoutSeconds: z.int().min(0),
  batchSize: z.int().min(1).max(10),
  pollers: z.int().min(1),
});

/** Everything one worker process needs: where local AWS is, what to drive, how hard to fail. */
export type WorkerSettings = z.infer<typeof WorkerSettingsSchema>;

/** Reads a worker's settings from its environment; throws on anything malformed. */
export const readWorkerSettings = (env: NodeJS.ProcessEnv): WorkerSettings =>
  WorkerSettingsSchema.parse(JSON.parse(env[WORKER_SETTINGS_ENV] ?? "null"));

/**
 * What a worker tells its supervisor over the IPC channel. A `result` (a result write that
 * landed) feeds the hostile producer, for which a report lost to a SIGKILL is only a missed
 * chance; what the checks count on goes to the claim trace instead.
 */
export type WorkerReport =
  | { readonly type: "ready" }
  | { readonly type: "fault"; readonly fault: AwsFault; readonly call: string }
  | { readonly type: "result"; readonly eventId: string; readonly status: EventStatus };

/** Narrows an IPC message to a {@link WorkerReport}; anything else is ignored. */
export const isWorkerReport = (message: unknown): message is WorkerReport => {
  if (message === null || typeof message !== "object") return false;
  const { type, fault, eventId, status } = message as Record<string, unknown>;
  return (
    type === "ready" ||
    (type === "fault" && ALL_AWS_FAULTS.some((known) => known === fault)) ||
    (type === "result" &&
      typeof eventId === "string" &&
      ALL_STATUSES.some((known) => known === status))
  );
};

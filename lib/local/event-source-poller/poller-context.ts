import { setTimeout as sleep } from "node:timers/promises";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type {
  EventSourcePollerOptions,
  PollerLogger,
  PollerStats,
} from "../event-source-poller.js";
import { queueArnFromUrl } from "../sqs-record.js";
import type { PollerSettings } from "./poller-settings.js";

/** What every piece of one poller shares: its queue, its settings, its counts and its stop. */
export interface PollerContext {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly options: EventSourcePollerOptions;
  readonly settings: PollerSettings;
  readonly logger: PollerLogger;
  readonly stats: { -readonly [K in keyof PollerStats]: number };
  readonly stopping: AbortController;
  /** Handlers that outlived their timeout: stop() still waits for them, like a frozen sandbox. */
  readonly overrunning: Set<Promise<unknown>>;
  /** The region and queue ARN the records name, resolved once. */
  readonly source: Promise<{ readonly region: string; readonly queueArn: string }>;
}

export const createPollerContext = (
  options: EventSourcePollerOptions,
  settings: PollerSettings,
  logger: PollerLogger,
): PollerContext => {
  const { sqs, queueUrl } = options;
  const source = (async () => {
    const region = options.region ?? (await sqs.config.region());
    return { region, queueArn: queueArnFromUrl(queueUrl, region) };
  })();
  // Awaited by the first invocation; until then a rejection must not go unhandled.
  source.catch(() => undefined);
  return {
    sqs,
    queueUrl,
    options,
    settings,
    logger,
    stats: {
      receivedMessages: 0,
      invocations: 0,
      deletedMessages: 0,
      failedRecords: 0,
      failedBatches: 0,
      timedOutBatches: 0,
      billedDurationMs: 0,
      receiveErrors: 0,
      deleteErrors: 0,
    },
    stopping: new AbortController(),
    overrunning: new Set(),
    source,
  };
};

/** A wait that stop() cuts short. */
export const pause = (context: PollerContext, ms: number): Promise<void> =>
  sleep(ms, undefined, { signal: context.stopping.signal }).catch(() => undefined);

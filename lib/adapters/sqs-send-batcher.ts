import type {
  MessageAttributeValue,
  SendMessageBatchCommandOutput,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { ConfigurationError, QueueUnavailableError } from "../core/errors.js";
import { sqsSdk } from "./aws-sdk-modules.js";
import {
  admitToBatch,
  BatchStep,
  type SendBatchLimits,
  SQS_SEND_BATCH_LIMITS,
} from "./send-batch-plan.js";
import { sqsCall, translateSqsBatchEntryFailure } from "./sqs-errors.js";
import { sendMessage } from "./sqs-message-calls.js";
import { assertSqsMessageSize, sqsMessageBytes } from "./sqs-message-size.js";

/** One message to send, as {@link sendMessage} takes it. */
export interface OutgoingMessage {
  readonly body: string;
  readonly attributes: Record<string, MessageAttributeValue>;
  readonly delaySeconds?: number | undefined;
}

/**
 * The sends of one invocation's batch of messages, gathered: see {@link SqsSendBatcher.gather}.
 * `begin` when a message starts, `end` when it is done; between the two, its sends go through
 * `send`.
 */
interface SendScope {
  send(message: OutgoingMessage): Promise<void>;
  begin(): void;
  end(): void;
}

/** Sends messages to one queue; each promise settles with its own message's fate. */
export interface SqsSendBatcher {
  send(message: OutgoingMessage): Promise<void>;
  /**
   * A scope whose sends wait for the scope's other running messages to end or to send too (at
   * most `gatherMaxMs`), instead of the window: an invocation's retries then share one request
   * however far apart their calls end, where the window alone gathers only failures that come
   * within a few ms of each other, and the last of them leaves at once rather than a window late.
   */
  gather(): SendScope;
}

export interface SqsSendBatcherOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /**
   * How long the first message of a batch, sent outside a {@link SqsSendBatcher.gather} scope,
   * waits for others before the batch is sent; every message sent this way is late by at most
   * this much.
   */
  readonly windowMs: number;
  /**
   * How long, at most, a batch whose oldest message was sent in a {@link SqsSendBatcher.gather}
   * scope waits for that scope's running messages (default {@link DEFAULT_GATHER_MAX_MS}). It
   * bounds how late a retry can be sent when a sibling's call is slow, and it is far below the
   * lease margin, so the attempt's result write still comes inside its lease.
   */
  readonly gatherMaxMs?: number;
  readonly limits?: SendBatchLimits;
}

/**
 * Half a second: a retry is late by at most this when a sibling's call is still running. The
 * default retry delays are whole seconds, from 5 s on.
 */
const DEFAULT_GATHER_MAX_MS = 500;

/** A scope's messages that are running and not waiting on one of their own sends. */
interface ScopeState {
  running: number;
}

interface Waiting {
  readonly message: OutgoingMessage;
  readonly bytes: number;
  readonly scope: ScopeState | undefined;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

type BatchCall = { readonly operation: string; readonly queueUrl: string };

/** Settles each waiting sender by its own entry's result in the batch's answer. */
const settleEntries = (
  batch: readonly Waiting[],
  output: SendMessageBatchCommandOutput,
  call: BatchCall,
): void => {
  const succeeded = new Set((output.Successful ?? []).map((entry) => entry.Id));
  const failed = new Map((output.Failed ?? []).map((entry) => [entry.Id, entry]));
  batch.forEach((waiting, index) => {
    const id = String(index);
    const failure = failed.get(id);
    if (failure !== undefined) {
      waiting.reject(translateSqsBatchEntryFailure(failure, call));
    } else if (succeeded.has(id)) {
      waiting.resolve();
    } else {
      // Neither listed: SQS did not say the message was taken, so the sender must not assume it.
      waiting.reject(
        new QueueUnavailableError(`SQS SendMessageBatch did not report entry ${id}`, {
          context: { ...call, transient: true },
        }),
      );
    }
  });
};

const sendBatch = async (
  sqs: SQSClient,
  call: BatchCall,
  batch: readonly Waiting[],
): Promise<void> => {
  const { SendMessageBatchCommand } = sqsSdk();
  const output = await sqsCall(call, () =>
    sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: call.queueUrl,
        Entries: batch.map(({ message }, index) => ({
          Id: String(index),
          MessageBody: message.body,
          MessageAttributes: message.attributes,
          DelaySeconds: message.delaySeconds,
        })),
      }),
    ),
  );
  settleEntries(batch, output, call);
};

/** One message goes as a plain `SendMessage`; a failed request rejects every sender in it. */
const sendGathered = (sqs: SQSClient, call: BatchCall, batch: readonly Waiting[]): void => {
  if (batch.length === 0) return;
  const [only] = batch;
  const sent =
    batch.length === 1 && only !== undefined
      ? sendMessage(sqs, call.queueUrl, only.message).then(only.resolve)
      : sendBatch(sqs, call, batch);
  sent.catch((error: unknown) => {
    for (const waiting of batch) waiting.reject(error);
  });
};

const assertBatching = (windowMs: number, gatherMaxMs: number, limits: SendBatchLimits) => {
  const valid = (ms: number) => Number.isFinite(ms) && ms >= 0;
  if (!valid(windowMs) || !valid(gatherMaxMs) || limits.maxEntries < 2) {
    throw new ConfigurationError(
      `invalid send batching: windowMs ${windowMs}, gatherMaxMs ${gatherMaxMs}, maxEntries ${limits.maxEntries}`,
    );
  }
};

/** The batch being gathered, and the two ways a message joins it and a batch leaves. */
const createGathering = (
  { sqs, queueUrl, windowMs }: SqsSendBatcherOptions,
  gatherMaxMs: number,
  limits: SendBatchLimits,
) => {
  const call = { operation: "SendMessageBatch", queueUrl };
  let gathered: Waiting[] = [];
  let gatheredBytes = 0;
  // The batch being gathered goes when this fires: after the window if its oldest message was
  // sent outside a scope, after `gatherMaxMs` if a scope's (which usually goes sooner, once the
  // scope has nothing running).
  let timer: NodeJS.Timeout | undefined;

  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    const batch = gathered;
    gathered = [];
    gatheredBytes = 0;
    sendGathered(sqs, call, batch);
  };

  /*
   * Only the oldest message's scope is waited for: later ones ride along, or the batch would
   * wait for as long as new scopes kept joining it (several invocations in one process).
   */
  const flushIfReady = (): void => {
    const scope = gathered[0]?.scope;
    if (scope !== undefined && scope.running === 0) flush();
  };

  const enqueue = (message: OutgoingMessage, scope: ScopeState | undefined): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      assertSqsMessageSize(message.body, message.attributes);
      const bytes = sqsMessageBytes(message.body, message.attributes);
      const step = admitToBatch({ entries: gathered.length, bytes: gatheredBytes }, bytes, limits);
      if (step === BatchStep.ALONE) {
        sendMessage(sqs, queueUrl, message).then(resolve, reject);
        return;
      }
      if (step === BatchStep.FLUSH_THEN_ADD) flush();
      gathered.push({ message, bytes, scope, resolve, reject });
      gatheredBytes += bytes;
      if (step === BatchStep.ADD_THEN_FLUSH) flush();
      else {
        if (gathered.length === 1)
          timer = setTimeout(flush, scope === undefined ? windowMs : gatherMaxMs);
        flushIfReady();
      }
    });

  return { enqueue, flushIfReady };
};

type Gathering = ReturnType<typeof createGathering>;

/** A new scope: counts its running messages so the batch knows when to stop waiting for them. */
const openScope = ({ enqueue, flushIfReady }: Gathering): SendScope => {
  const scope: ScopeState = { running: 0 };
  return {
    begin: () => {
      scope.running += 1;
    },
    end: () => {
      scope.running -= 1;
      flushIfReady();
    },
    send: async (message) => {
      // Waiting on its own send, a message cannot send again: the batch need not wait for it.
      scope.running -= 1;
      try {
        await enqueue(message, scope);
      } finally {
        scope.running += 1;
      }
    },
  };
};

/**
 * Gathers the messages sent within `windowMs` of each other into `SendMessageBatch` requests
 * (up to SQS's 10 entries and batch payload), then settles each caller's promise by its own
 * entry's result: a failed entry rejects only its sender, with the error the single
 * `SendMessage` would have raised. A caller that awaits its send before writing anything keeps
 * that order, whoever shares its request.
 */
export const createSqsSendBatcher = (options: SqsSendBatcherOptions): SqsSendBatcher => {
  const { gatherMaxMs = DEFAULT_GATHER_MAX_MS, limits = SQS_SEND_BATCH_LIMITS } = options;
  assertBatching(options.windowMs, gatherMaxMs, limits);
  const gathering = createGathering(options, gatherMaxMs, limits);
  return {
    send: (message) => gathering.enqueue(message, undefined),
    gather: () => openScope(gathering),
  };
};

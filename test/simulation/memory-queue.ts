import { clampDelaySeconds } from "../../lib/adapters/sqs-ingress-queue.js";
import { MAX_SQS_DELAY_SECONDS } from "../../lib/contract/aws-limits.js";
import { type DeadLetterMessage, fitDeadLetter } from "../../lib/core/dead-letter.js";
import { MAX_MESSAGE_BYTES, utf8Bytes } from "../../lib/core/envelope.js";
import { MessageTooLargeError, QueueUnavailableError } from "../../lib/core/errors.js";
import {
  type DeadLetterQueue,
  type IngressQueue,
  MessageOrigin,
  type MessageSchedule,
  type ReceivedMessage,
} from "../../lib/core/ports.js";
import type { Clock } from "../../lib/core/random.js";

/*
 * An SQS standard queue in memory, with the semantics Ricochet relies on: per-message delay,
 * visibility timeout, a receive count, a new receipt handle on every receive,
 * ChangeMessageVisibility, delete by receipt handle, and the native dead-letter redrive after
 * maxReceiveCount receives.
 */

/** What a stale receipt handle (from before the message's latest receive) does. */
export const StaleReceipt = {
  /**
   * DeleteMessage succeeds and deletes nothing; ChangeMessageVisibility fails. This is what the
   * SQS documentation describes ("the request succeeds, but the message might not be deleted").
   */
  AS_SQS: "as_sqs",
  /** Both fail with QueueUnavailableError: stricter, to surface code that relies on old handles. */
  REJECT: "reject",
} as const;
export type StaleReceipt = (typeof StaleReceipt)[keyof typeof StaleReceipt];

/** SQS's longest visibility timeout. */
const MAX_VISIBILITY_SECONDS = 43_200;

/** How a message was sent: by whom, with which attributes. */
export interface SendOptions {
  /** Who sent it; default Ricochet (the internal queue's only senders). */
  readonly origin?: MessageOrigin;
  /** Reserved `ricochet.*` attribute names it carried (a hostile producer's forgeries). */
  readonly reservedAttributes?: readonly string[];
  /** A dead-letter copy's summary attribute. */
  readonly summary?: string;
}

interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly schedule: MessageSchedule;
  readonly origin: MessageOrigin;
  readonly reservedAttributes: readonly string[];
  readonly summary?: string | undefined;
  readonly sentAtMs: number;
  readonly seq: number;
  visibleAtMs: number;
  receiveCount: number;
  receiptHandle: string | undefined;
}

/** A message as it sits in the queue, for the invariant checks. */
export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly schedule: MessageSchedule;
  readonly origin: MessageOrigin;
  readonly summary?: string | undefined;
  readonly receiveCount: number;
  readonly visibleAtMs: number;
}

export interface MemoryQueueOptions {
  readonly name: string;
  readonly clock: Clock;
  readonly staleReceipt?: StaleReceipt;
  /** Native redrive: a message received more than this many times moves to `deadLetterQueue`. */
  readonly maxReceiveCount?: number;
  readonly deadLetterQueue?: MemoryQueue;
  /** Called on each receive of each message; true delivers it a second time (at-least-once). */
  readonly duplicate?: () => boolean;
  /** Picks among visible messages (standard queues are unordered); default oldest first. */
  readonly random?: () => number;
}

/** SQS counts attributes towards the 1 MiB limit; the schedule attributes are small but real. */
const scheduleBytes = (schedule: MessageSchedule): number => utf8Bytes(JSON.stringify(schedule));

/** A received message; `summary` is set on dead-letter copies. */
export type MemoryReceived = ReceivedMessage & { readonly summary?: string | undefined };

export class MemoryQueue {
  private readonly messages: StoredMessage[] = [];
  private seq = 0;
  private receipts = 0;
  private readonly listeners = new Set<() => void>();
  /** Messages moved here by the native redrive (raw bodies), counted for reports. */
  public nativeRedrives = 0;

  public constructor(private readonly options: MemoryQueueOptions) {}

  /** SendMessage. Delays must be whole seconds from 0 to 900, as SQS requires. */
  public send(
    body: string,
    schedule: MessageSchedule,
    delaySeconds: number,
    options: SendOptions = {},
  ): string {
    const bytes = utf8Bytes(body) + scheduleBytes(schedule) + utf8Bytes(options.summary ?? "");
    if (bytes > MAX_MESSAGE_BYTES) throw new MessageTooLargeError(bytes, MAX_MESSAGE_BYTES);
    if (
      !Number.isInteger(delaySeconds) ||
      delaySeconds < 0 ||
      delaySeconds > MAX_SQS_DELAY_SECONDS
    ) {
      throw new QueueUnavailableError(`${this.options.name}: invalid DelaySeconds ${delaySeconds}`);
    }
    const messageId = `${this.options.name}-m${this.seq}`;
    this.adopt(
      {
        messageId,
        body,
        schedule,
        origin: options.origin ?? MessageOrigin.RICOCHET,
        reservedAttributes: options.reservedAttributes ?? [],
        summary: options.summary,
        sentAtMs: this.options.clock(),
      },
      delaySeconds * 1000,
    );
    return messageId;
  }

  private adopt(
    message: Pick<
      StoredMessage,
      "messageId" | "body" | "schedule" | "origin" | "reservedAttributes" | "summary" | "sentAtMs"
    >,
    delayMs: number,
    receiveCount = 0,
  ): void {
    this.messages.push({
      ...message,
      seq: this.seq++,
      visibleAtMs: this.options.clock() + delayMs,
      receiveCount,
      receiptHandle: undefined,
    });
    if (delayMs === 0) this.notify();
  }

  /** Registers a callback run whenever a message may have become visible early. */
  public onVisible(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** ReceiveMessage: up to `max` visible messages, each hidden for `visibilitySeconds`. */
  public receive(max: number, visibilitySeconds: number): MemoryReceived[] {
    const now = this.options.clock();
    const visible = this.messages.filter((m) => m.visibleAtMs <= now);
    const picked: StoredMessage[] = [];
    while (picked.length < max && visible.length > 0) {
      const index =
        this.options.random === undefined ? 0 : Math.floor(this.options.random() * visible.length);
      picked.push(...visible.splice(index, 1));
    }
    const received: MemoryReceived[] = [];
    for (const message of picked) {
      const limit = this.options.maxReceiveCount;
      if (limit !== undefined && message.receiveCount >= limit && this.options.deadLetterQueue) {
        // SQS moves the message when a receive would exceed maxReceiveCount.
        this.remove(message);
        this.options.deadLetterQueue.adopt(message, 0);
        this.options.deadLetterQueue.nativeRedrives += 1;
        continue;
      }
      message.receiveCount += 1;
      this.receipts += 1;
      message.receiptHandle = `${message.messageId}#r${this.receipts}`;
      message.visibleAtMs = now + visibilitySeconds * 1000;
      received.push({
        messageId: message.messageId,
        receiptHandle: message.receiptHandle,
        body: message.body,
        origin: message.origin,
        schedule: message.schedule,
        reservedAttributes: message.reservedAttributes,
        summary: message.summary,
        receiveCount: message.receiveCount,
        sentAtMs: message.sentAtMs,
      });
      if (this.options.duplicate?.() === true) {
        // A second copy of the same message, as SQS's at-least-once delivery may hand out. It is
        // the same message to SQS, so it keeps the receive count: a fresh count would let copies
        // of copies multiply without bound (a branching process at a 10 % fault rate).
        this.adopt(message, 0, message.receiveCount);
      }
    }
    return received;
  }

  /** Every message DeleteMessage removed, with the handle that removed it (for the checks). */
  public readonly deletions: { readonly messageId: string; readonly receiptHandle: string }[] = [];
  /** DeleteMessage calls whose handle was not current: they deleted nothing. */
  public staleDeletes = 0;

  private find(receiptHandle: string): StoredMessage | undefined {
    return this.messages.find((m) => m.receiptHandle === receiptHandle);
  }

  private remove(message: StoredMessage): void {
    this.messages.splice(this.messages.indexOf(message), 1);
  }

  /** DeleteMessage. A stale handle deletes nothing (or fails, with {@link StaleReceipt.REJECT}). */
  public delete(receiptHandle: string): void {
    const message = this.find(receiptHandle);
    if (message !== undefined) {
      this.remove(message);
      this.deletions.push({ messageId: message.messageId, receiptHandle });
      return;
    }
    this.staleDeletes += 1;
    if (this.options.staleReceipt === StaleReceipt.REJECT) {
      throw new QueueUnavailableError(`${this.options.name}: receipt handle is not current`);
    }
  }

  /** ChangeMessageVisibility, counted from now. Fails for a handle that is not current. */
  public changeVisibility(receiptHandle: string, seconds: number): void {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_VISIBILITY_SECONDS) {
      throw new QueueUnavailableError(`${this.options.name}: invalid VisibilityTimeout ${seconds}`);
    }
    const message = this.find(receiptHandle);
    if (message === undefined) {
      throw new QueueUnavailableError(`${this.options.name}: receipt handle is not current`);
    }
    message.visibleAtMs = this.options.clock() + seconds * 1000;
    if (seconds === 0) this.notify();
  }

  /** Messages in the queue, visible or not. */
  public size(): number {
    return this.messages.length;
  }

  /** When the next hidden message becomes visible, if any is hidden. */
  public nextVisibleAtMs(): number | undefined {
    let next: number | undefined;
    for (const m of this.messages)
      if (next === undefined || m.visibleAtMs < next) next = m.visibleAtMs;
    return next;
  }

  public contents(): QueuedMessage[] {
    return this.messages.map((m) => ({
      messageId: m.messageId,
      body: m.body,
      schedule: m.schedule,
      origin: m.origin,
      summary: m.summary,
      receiveCount: m.receiveCount,
      visibleAtMs: m.visibleAtMs,
    }));
  }
}

/** The ingress port over a memory queue, clamping delays as the SQS adapter does. */
export const memoryIngressQueue = (queue: MemoryQueue): IngressQueue => ({
  send: async (body, schedule, delaySeconds) => {
    queue.send(body, schedule, clampDelaySeconds(delaySeconds));
  },
  changeVisibility: async (message, seconds) => {
    queue.changeVisibility(message.receiptHandle, seconds);
  },
});

/**
 * The dead-letter port over a memory queue: the producer's body with the summary beside it, cut
 * to fit exactly as the SQS adapter does.
 */
export const memoryDeadLetterQueue = (queue: MemoryQueue): DeadLetterQueue => ({
  send: async (message: DeadLetterMessage) => {
    const { summary, body } = fitDeadLetter(message);
    queue.send(body, { generation: 0 }, 0, { summary: JSON.stringify(summary) });
  },
  receive: async ({ maxMessages, visibilityTimeoutSeconds }) =>
    queue.receive(Math.max(1, Math.min(10, maxMessages)), visibilityTimeoutSeconds),
  delete: async (receiptHandle) => {
    queue.delete(receiptHandle);
  },
  changeVisibility: async (receiptHandle, seconds) => {
    queue.changeVisibility(receiptHandle, seconds);
  },
});

import type { CleanReport } from "../../lib/app/operator/dead-letter-clean.js";
import type { DeadLetterListing } from "../../lib/app/operator/dead-letter-scan.js";
import type { RedriveReport } from "../../lib/app/operator/redrive.js";
import type { ReceivedDeadLetter } from "../../lib/core/ports.js";
import type { AcknowledgedMessage } from "../support/guarantee-checks.js";
import type { TargetCall } from "./simulated-target.js";

/** A claim the store granted, in the claimer's clock and in true virtual time. */
export interface ClaimTrace {
  readonly eventId: string;
  readonly attempt: number;
  readonly generation: number;
  readonly worker: string;
  readonly invocation: number;
  readonly trueAtMs: number;
  /** As stored: the claimer's clock at the claim plus the lease. */
  readonly leaseExpiresAt: number;
  /** The store granted it over a record in flight whose lease had expired. */
  readonly takeover: boolean;
}

/** What one invocation was handed and what it did with it, for the drain check. */
export interface InvocationTrace {
  readonly id: number;
  readonly worker: string;
  /** `eventId@generation` of each message in the batch (unreadable bodies are left out). */
  readonly batch: string[];
  /** Receipt handles of the batch, by `eventId@generation`. */
  readonly receipts: Map<string, string>;
  /** Keys of the messages the orchestrator handed back unstarted (visibility 0). */
  readonly drained: string[];
  /** Keys claimed during the invocation. */
  readonly claimed: string[];
  /** Receipt handles the event source deleted after the invocation returned. */
  readonly deleted: string[];
}

/** A deferral the orchestrator made: the event went back to the queue without a claim. */
interface DeferralTrace {
  readonly eventId: string;
  /** When the re-sent copy is due, in the deferring worker's clock. */
  readonly untilMs: number;
  /** An open breaker turned it away (not a limit). */
  readonly byBreaker: boolean;
}

/** An operator's cancel the store recorded, in true virtual time. */
interface CancelTrace {
  readonly eventId: string;
  /** The status the event was cancelled in. */
  readonly from: string;
  readonly trueAtMs: number;
}

/** An operator's replay the store recorded: the event went back to pending at `generation`. */
interface ReplayTrace {
  readonly eventId: string;
  readonly generation: number;
  readonly trueAtMs: number;
}

/** Everything the invariant checks read, besides the final store and queues. */
export interface SimulationTrace {
  readonly claims: ClaimTrace[];
  /** The event id of every result write that landed: each ends one claim's run. */
  readonly results: string[];
  /** Every valid event's message the event source deleted, and whether its event had a record. */
  readonly acknowledged: AcknowledgedMessage[];
  readonly deferrals: DeferralTrace[];
  readonly calls: TargetCall[];
  readonly invocations: InvocationTrace[];
  readonly redrives: RedriveReport[];
  /** Dead-letter copies the operator's `ricochet dlq clean` runs received, by receipt handle. */
  readonly cleanReceived: Map<string, ReceivedDeadLetter>;
  /** Copies a clean run may have removed without an entry, as it told its operator. */
  readonly cleanExcused: Set<string>;
  readonly cleanReports: CleanReport[];
  /** The body of every message a redrive run sent back to the internal queue. */
  readonly redriven: string[];
  /** What a second operator's `dlq list` runs printed during the clean-ups. */
  readonly listings: DeadLetterListing[][];
  readonly cancels: CancelTrace[];
  /** Why cancels were refused (an attempt in flight, already delivered, no record yet). */
  readonly cancelRefusals: string[];
  readonly replays: ReplayTrace[];
  crashes: number;
}

export const keyOf = (eventId: string, generation: number): string => `${eventId}@${generation}`;

export const newTrace = (calls: TargetCall[]): SimulationTrace => ({
  claims: [],
  results: [],
  acknowledged: [],
  deferrals: [],
  calls,
  invocations: [],
  redrives: [],
  cleanReceived: new Map(),
  cleanExcused: new Set(),
  cleanReports: [],
  redriven: [],
  listings: [],
  cancels: [],
  cancelRefusals: [],
  replays: [],
  crashes: 0,
});

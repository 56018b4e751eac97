import type {
  ClaimRequest,
  ClaimResult,
  EventStore,
  RecordResultRequest,
} from "../../lib/core/ports.js";

/** What a run wants to know of the store's answers. */
export interface StoreObserver {
  /** A claim the store granted (`result.takeover`: over a lease that had expired). */
  readonly onClaimed?: (
    request: ClaimRequest,
    result: Extract<ClaimResult, { kind: "claimed" }>,
  ) => void;
  /** A result write that landed. */
  readonly onRecorded?: (request: RecordResultRequest) => void;
}

/**
 * The store, telling `observer` of every granted claim and landed result write: how the
 * simulation and the chaos workers trace takeovers, and how a hostile producer learns that an
 * event waits for its retry or has finished. The answers pass through unchanged.
 */
export const observeStore = (store: EventStore, observer: StoreObserver): EventStore => ({
  ...store,
  claim: async (request) => {
    const result = await store.claim(request);
    if (result.kind === "claimed") observer.onClaimed?.(request, result);
    return result;
  },
  recordResult: async (request) => {
    const outcome = await store.recordResult(request);
    if (outcome.kind === "recorded") observer.onRecorded?.(request);
    return outcome;
  },
});

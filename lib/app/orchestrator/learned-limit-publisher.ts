import { errorWithName } from "../../core/errors.js";
import { LEARNED_REFRESH_MS, type LearnedLimitEntry } from "../../core/learned-limits.js";
import type { Log } from "../../core/observability.js";
import type { TargetStateStore } from "../../core/ports.js";
import type { Clock } from "../../core/random.js";

/*
 * Writes this instance's learned limits where operators read targets (issue #35): into each
 * target's item, one entry per instance. Only while the instance holds a target back: a target
 * that never pushed back is never written, and the one write that says it is back at its ceiling
 * removes the entry. At most one write per target per {@link LEARNED_WRITE_INTERVAL_MS}; a change
 * inside that window waits for the next observation after it (the last state wins), never for a
 * timer, which would keep a Lambda instance awake. Writes are never awaited by the call path and
 * never fail it: an operator's view is not worth a delivery. Each write returns the other
 * instances' entries, which is how an instance learns its share of the target's pace
 * (lib/core/fleet-share.ts) without a read of its own.
 */

/** Least time between two writes of one target's entry by one instance. */
export const LEARNED_WRITE_INTERVAL_MS = 5_000;

/** Targets whose writes one instance tracks, as many as it learns limits for. */
const MAX_PUBLISHED_TARGETS = 1_000;

/** What this instance wrote of one target's limit, and whether a newer state waits. */
interface Publication {
  lastWrittenMs: number | undefined;
  /** Whether the entry written (or waiting) says the target is held back. */
  shown: boolean;
  pending: boolean;
}

/** The per-instance writer of learned limits. */
export interface LearnedLimitPublisher {
  /**
   * Called after each observation of `key`'s limit; `changed`: it changed in a way operators are
   * told of. Writes the target's current entry when one waits and the interval allows.
   */
  observed(key: string, changed: boolean): void;
  /** Whether the entry this instance last wrote for `key` says it is held back. */
  shows(key: string): boolean;
}

export interface LearnedLimitPublisherDeps {
  readonly store: Pick<TargetStateStore, "writeLearnedLimit">;
  readonly instanceId: string;
  readonly clock: Clock;
  readonly log: Log;
  /** The target's entry now (without its write time); undefined when it is not held back. */
  readonly current: (
    key: string,
  ) => Omit<LearnedLimitEntry, "instanceId" | "writtenAtMs"> | undefined;
  /** Default {@link MAX_PUBLISHED_TARGETS}. */
  readonly maxTargets?: number | undefined;
  /** Told the other instances' entries each write of `key` returned. */
  readonly heard?: ((key: string, others: readonly LearnedLimitEntry[]) => void) | undefined;
}

/** Whether `publication` has nothing left to say: nothing shown, nothing waiting, window over. */
const settled = (publication: Publication, nowMs: number): boolean =>
  !publication.shown &&
  !publication.pending &&
  (publication.lastWrittenMs === undefined ||
    nowMs - publication.lastWrittenMs >= LEARNED_WRITE_INTERVAL_MS);

/** Creates the writer; it holds no timer and does no I/O until a target is held back. */
export const createLearnedLimitPublisher = (
  deps: LearnedLimitPublisherDeps,
): LearnedLimitPublisher => {
  const { store, instanceId, clock, log, current, heard } = deps;
  const maxTargets = deps.maxTargets ?? MAX_PUBLISHED_TARGETS;
  const publications = new Map<string, Publication>();

  const track = (key: string): Publication => {
    const publication = { lastWrittenMs: undefined, shown: false, pending: false };
    publications.set(key, publication);
    if (publications.size > maxTargets) {
      const oldest = publications.keys().next().value;
      if (oldest !== undefined) publications.delete(oldest);
    }
    return publication;
  };

  const write = (key: string, publication: Publication, nowMs: number): void => {
    const now = current(key);
    const entry = now === undefined ? undefined : { ...now, instanceId, writtenAtMs: nowMs };
    publication.pending = false;
    publication.lastWrittenMs = nowMs;
    publication.shown = entry !== undefined;
    // An async wrapper, so that even a store throwing at once is logged, not thrown at the call.
    const written = async () => {
      const others = await store.writeLearnedLimit({ key, instanceId, entry, nowMs });
      heard?.(key, others);
    };
    written().catch((error: unknown) => {
      log.warn("learned target limit not written", { target: key, error: errorWithName(error) });
    });
  };

  const observed = (key: string, changed: boolean): void => {
    const found = publications.get(key);
    if (found === undefined && !changed) return; // a healthy target: no I/O, no state
    const publication = found ?? track(key);
    const nowMs = clock();
    const last = publication.lastWrittenMs;
    // Rewritten before it would read as stale while the instance still holds the target back.
    if (publication.shown && last !== undefined && nowMs - last >= LEARNED_REFRESH_MS)
      publication.pending = true;
    if (changed) publication.pending = true;
    if (publication.pending && (last === undefined || nowMs - last >= LEARNED_WRITE_INTERVAL_MS))
      write(key, publication, nowMs);
    if (settled(publication, nowMs)) publications.delete(key);
  };

  const shows = (key: string): boolean => publications.get(key)?.shown ?? false;

  return { observed, shows };
};

import type { EventStore } from "../core/ports.js";
import type { EventRecord } from "../core/record.js";
import { ALL_STATUSES, type EventStatus } from "../core/status.js";
import { targetKeyOfTyped } from "../core/target-key.js";

/*
 * Events by status, as the console lists them, through the store's listByStatus, the call
 * `ricochet events` makes. The store has no cursor: a page is read as the first
 * (page + 1) × size records and cut, which is fine for the pages a person clicks through.
 *
 * The list refreshes itself, so every read it makes is bounded in items *read*, not only in
 * matches: a status outside the index (or any status filtered by target) is found by scanning,
 * and a scan for a rare status would otherwise read the whole table on every refresh.
 */

/** Events on one page of the list. */
const EVENTS_PAGE_SIZE = 25;
/** A status's count is read up to this many; above, the page says "1000+". */
export const COUNT_CAP = 1000;
/**
 * Items one status's count may read. Counts of the index's statuses read no more than they
 * count (the cap and one); the others scan, and say so when this cuts them short.
 */
export const COUNT_READ_BUDGET = 2 * COUNT_CAP;
/** Items the listed page may read: enough for a few pages of a common status, bounded for a rare one. */
export const PAGE_READ_BUDGET = 5000;

/** What the list shows: which status, which target, which page. */
export interface EventQuery {
  readonly status: EventStatus;
  readonly targetKey?: string | undefined;
  /** 0 for the first page. */
  readonly page: number;
}

/** A status's count, capped at {@link COUNT_CAP}. */
export interface StatusCount {
  readonly status: EventStatus;
  readonly count: number;
  /** True when there are more than `count`. */
  readonly more: boolean;
  /**
   * True when the count stopped at {@link COUNT_READ_BUDGET} items read: `count` were found
   * among them, and the rest of the table was not looked at.
   */
  readonly partial: boolean;
}

export interface EventListing {
  readonly query: EventQuery;
  readonly counts: readonly StatusCount[];
  readonly records: readonly EventRecord[];
  readonly hasNext: boolean;
  /**
   * True when the page's read stopped at {@link PAGE_READ_BUDGET} items before it had the page:
   * more events may be in this status than are shown.
   */
  readonly partial: boolean;
}

/**
 * The query a request's parameters describe: an unknown status falls back to `dead_lettered`
 * (the index's, cheapest to read), a bad page number to the first page.
 */
export const eventQueryOf = (params: {
  readonly status?: string | undefined;
  readonly target?: string | undefined;
  readonly page?: string | undefined;
}): EventQuery => {
  const status = ALL_STATUSES.find((s) => s === params.status) ?? "dead_lettered";
  const page = Number(params.page);
  const target = params.target?.trim();
  return {
    status,
    targetKey:
      target === undefined || target === "" ? undefined : (targetKeyOfTyped(target) ?? target),
    page: Number.isSafeInteger(page) && page >= 0 ? page : 0,
  };
};

/** Reads the counts of every status and the query's page (statuses other than the index's scan). */
export const listEvents = async (
  store: Pick<EventStore, "listByStatus">,
  query: EventQuery,
): Promise<EventListing> => {
  const counting = ALL_STATUSES.map(async (status): Promise<StatusCount> => {
    const { records, cutShort } = await store.listByStatus({
      status,
      targetKey: query.targetKey,
      limit: COUNT_CAP + 1,
      maxItemsRead: COUNT_READ_BUDGET,
    });
    const found = records.length;
    return {
      status,
      count: Math.min(found, COUNT_CAP),
      more: found > COUNT_CAP,
      partial: cutShort,
    };
  });
  const start = query.page * EVENTS_PAGE_SIZE;
  const [counts, upToPage] = await Promise.all([
    Promise.all(counting),
    store.listByStatus({
      status: query.status,
      targetKey: query.targetKey,
      limit: start + EVENTS_PAGE_SIZE + 1,
      maxItemsRead: PAGE_READ_BUDGET,
    }),
  ]);
  const { records, cutShort } = upToPage;
  return {
    query,
    counts,
    records: records.slice(start, start + EVENTS_PAGE_SIZE),
    hasNext: records.length > start + EVENTS_PAGE_SIZE,
    partial: cutShort,
  };
};

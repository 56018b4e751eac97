import type { EventStore } from "../core/ports.js";
import type { EventRecord } from "../core/record.js";
import { ALL_STATUSES, type EventStatus } from "../core/status.js";
import { targetKeyOfTyped } from "../core/target-key.js";

/*
 * Events by status, as the console lists them, through the store's listByStatus, the call
 * `ricochet events` makes. The store has no cursor: a page is read as the first
 * (page + 1) × size records and cut, which is fine for the pages a person clicks through.
 */

/** Events on one page of the list. */
export const EVENTS_PAGE_SIZE = 25;
/** A status's count is read up to this many; above, the page says "1000+". */
export const COUNT_CAP = 1000;

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
}

export interface EventListing {
  readonly query: EventQuery;
  readonly counts: readonly StatusCount[];
  readonly records: readonly EventRecord[];
  readonly hasNext: boolean;
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
export const listEvents = async (store: EventStore, query: EventQuery): Promise<EventListing> => {
  const counting = ALL_STATUSES.map(async (status): Promise<StatusCount> => {
    const found = await store.listByStatus({
      status,
      targetKey: query.targetKey,
      limit: COUNT_CAP + 1,
    });
    return { status, count: Math.min(found.length, COUNT_CAP), more: found.length > COUNT_CAP };
  });
  const start = query.page * EVENTS_PAGE_SIZE;
  const [counts, upToPage] = await Promise.all([
    Promise.all(counting),
    store.listByStatus({
      status: query.status,
      targetKey: query.targetKey,
      limit: start + EVENTS_PAGE_SIZE + 1,
    }),
  ]);
  return {
    query,
    counts,
    records: upToPage.slice(start, start + EVENTS_PAGE_SIZE),
    hasNext: upToPage.length > start + EVENTS_PAGE_SIZE,
  };
};

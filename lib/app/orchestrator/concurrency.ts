/**
 * Runs `work` over `items` with at most `limit` in flight, resolving when all are done. Work
 * must not throw: a failure of one item is that item's business, not the batch's.
 */
export const mapWithConcurrency = async <T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> => {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
};

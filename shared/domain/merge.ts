/**
 * The k-way merge of partitions each read in key order (the delivery list's cells, a scope's
 * time-ordered items spread over its partitions). Pure: the store reads the pages.
 */

/** One partition being read: what was read and not yet taken, and whether it holds more. */
export interface SourcePage<T> {
  items: T[];
  more: boolean;
}

/**
 * Takes the first item of all partitions by `key` in `order` into `out` (each partition's items
 * already in that order) until `out` holds `need` items. Stops with `'refill'` when a partition
 * that may hold more has nothing read left: its next page must be read before anything after it
 * can be taken, so a merged page never skips an item.
 */
export function takeInOrder<T>(
  sources: readonly SourcePage<T>[],
  key: (item: T) => string,
  out: T[],
  need: number,
  order: 'asc' | 'desc',
): 'done' | 'refill' {
  const before = (a: string, b: string) => (order === 'asc' ? a < b : a > b);
  while (out.length < need) {
    let first: SourcePage<T> | undefined;
    for (const source of sources) {
      const head = source.items[0];
      if (head === undefined) {
        if (source.more) return 'refill';
        continue;
      }
      const best = first?.items[0];
      if (best === undefined || before(key(head), key(best))) first = source;
    }
    if (!first) return 'done';
    out.push(first.items.shift() as T);
  }
  return 'done';
}

/**
 * The first page of one partition in a merge, which holds `matches` of the `total` items: of the
 * first `need` items of the merge, its share is Binomial(need, matches / total), so its mean plus
 * two standard deviations, and one more, leaves about 1 page in 10 needing a second round (a
 * partition read out while it may hold the next item), where the mean alone needs one almost
 * always. A partition that runs out while it may still hold the next item reads twice as much
 * next time.
 */
export function firstPageSize(need: number, matches: number, total: number): number {
  if (total <= 0) return need;
  const p = matches / total;
  const mean = need * p;
  return Math.max(1, Math.min(need, Math.ceil(mean + 2 * Math.sqrt(mean * (1 - p))) + 1));
}

/**
 * Exactly-once counting from the table's stream (delivery and payment counts) commits each run
 * of changes as one transaction: the marker of each counted item plus each counter item the run
 * touches, every item once.
 */

/**
 * Splits `changes`, in order, into runs that each fit one transaction of at most `maxItems`
 * distinct items (`itemIds`: the change's marker and the counter items it moves).
 */
export function chunkByItems<T>(
  changes: readonly T[],
  itemIds: (change: T) => string[],
  maxItems: number,
): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let items = new Set<string>();
  for (const change of changes) {
    const ids = itemIds(change);
    const added = new Set(ids.filter((id) => !items.has(id)));
    if (chunk.length > 0 && items.size + added.size > maxItems) {
      chunks.push(chunk);
      chunk = [];
      items = new Set();
    }
    chunk.push(change);
    for (const id of ids) items.add(id);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

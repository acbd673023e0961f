/**
 * Exactly-once counting from the table's stream (delivery and payment counts) commits each run
 * of changes as one transaction: a marker per change plus each counter item the run touches.
 */

/**
 * Splits `changes`, in order, into runs that each fit one transaction of at most `maxItems`
 * items: one marker per change plus one item per distinct counter item (`counterItemIds`).
 */
export function chunkByCounterItems<T>(
  changes: readonly T[],
  counterItemIds: (change: T) => string[],
  maxItems: number,
): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let cells = new Set<string>();
  for (const item of changes) {
    const ids = counterItemIds(item);
    const added = ids.filter((id) => !cells.has(id));
    if (chunk.length > 0 && chunk.length + 1 + cells.size + added.length > maxItems) {
      chunks.push(chunk);
      chunk = [];
      cells = new Set();
    }
    chunk.push(item);
    for (const id of ids) cells.add(id);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

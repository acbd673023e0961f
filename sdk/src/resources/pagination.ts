/** Walks the cursor lists (`has_more`/`next_cursor`) of charges, MED cases and the key audit log page by page. */
export async function* followCursor<T>(
  page: (cursor: string | undefined) => Promise<{ data: T[]; has_more: boolean; next_cursor: string | null }>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (;;) {
    const current = await page(cursor);
    yield* current.data;
    if (!current.has_more || !current.next_cursor) return;
    cursor = current.next_cursor;
  }
}

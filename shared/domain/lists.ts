/** The cursor-paged list shape (`GET /v1/charges`, MED cases, the API key audit log). */

export interface CursorList<O> {
  object: 'list';
  data: O[];
  has_more: boolean;
  next_cursor: string | null;
}

/** A page of `items` (one read beyond it said whether more follow); the cursor names its last item. */
export function cursorList<T, O>(
  items: readonly T[],
  hasMore: boolean,
  serialize: (item: T) => O,
  cursorOf: (last: T) => string,
): CursorList<O> {
  const last = items.at(-1);
  return {
    object: 'list',
    data: items.map((item) => serialize(item)),
    has_more: hasMore,
    next_cursor: hasMore && last !== undefined ? cursorOf(last) : null,
  };
}

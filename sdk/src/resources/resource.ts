import type { HttpClient } from '../http.ts';

/** What every resource holds: the client's transport. */
export abstract class Resource {
  protected readonly http: HttpClient;

  constructor(http: HttpClient) {
    this.http = http;
  }
}

/**
 * The items of a page not yielded before (recording them): an offset-paged walk over a
 * newest-first list sees an item again when a new one pushes it onto the next page.
 */
export function* unseen<T extends { id: string }>(items: readonly T[], yielded: Set<string>): Generator<T> {
  for (const item of items) {
    if (yielded.has(item.id)) continue;
    yielded.add(item.id);
    yield item;
  }
}

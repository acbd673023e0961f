import type { HttpClient } from '../http.ts';

/** What every resource holds: the client's transport. */
export abstract class Resource {
  protected readonly http: HttpClient;

  constructor(http: HttpClient) {
    this.http = http;
  }
}

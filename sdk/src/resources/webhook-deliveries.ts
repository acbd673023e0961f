import type { RequestOptions } from '../http.ts';
import type { DeliveryPage, DeliveryStats, ListDeliveriesParams, WebhookDelivery } from '../types.ts';
import { Resource, unseen } from './resource.ts';

/** The service reads at most this deep into the history (narrow with filters to go further back). */
const MAX_OFFSET = 1000;

/** `/v1/webhooks/deliveries` and `/v1/webhooks/stats`. */
export class WebhookDeliveries extends Resource {
  /** Newest first; `total` counts every match of the filters. */
  list(params: ListDeliveriesParams = {}, options?: RequestOptions): Promise<DeliveryPage> {
    return this.http.request(
      { method: 'GET', path: '/v1/webhooks/deliveries', auth: 'apikey', query: { ...params } },
      options,
    );
  }

  /**
   * Every matching delivery the service lets a list reach (offsets up to 1000). Pages are by
   * position, newest first: a delivery created meanwhile shifts the later pages, so each is yielded
   * once (never twice), and one created during the walk may be missed.
   */
  async *listAll(
    params: Omit<ListDeliveriesParams, 'offset'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<WebhookDelivery> {
    const yielded = new Set<string>();
    for (let offset = 0; offset <= MAX_OFFSET; ) {
      const page = await this.list({ ...params, offset }, options);
      yield* unseen(page.data, yielded);
      offset += page.data.length;
      // A short page is the end; `total` follows the list within seconds, so it may still lag.
      if (page.data.length < page.limit) return;
    }
  }

  /** Deliveries per status (from counters that follow the table within seconds). */
  stats(options?: RequestOptions): Promise<DeliveryStats> {
    return this.http.request({ method: 'GET', path: '/v1/webhooks/stats', auth: 'apikey' }, options);
  }
}

import type { RequestOptions } from '../http.ts';
import type {
  CreateWebhookEndpointParams,
  EventCatalogEntry,
  OverrideSecret,
  RotatedSecret,
  UpdateWebhookEndpointParams,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
} from '../types.ts';
import { Resource } from './resource.ts';

const endpointPath = (id: string, suffix = '') => `/v1/webhooks/endpoints/${encodeURIComponent(id)}${suffix}`;

/** `/v1/webhooks/endpoints`, the event catalog and the `webhookUrl` override secret. */
export class WebhookEndpoints extends Resource {
  /** Keep the returned `secret`: it is shown only here and on rotation. */
  create(params: CreateWebhookEndpointParams, options?: RequestOptions): Promise<WebhookEndpointWithSecret> {
    return this.http.request(
      { method: 'POST', path: '/v1/webhooks/endpoints', auth: 'apikey', body: params },
      options,
    );
  }

  list(options?: RequestOptions): Promise<WebhookEndpointList> {
    return this.http.request({ method: 'GET', path: '/v1/webhooks/endpoints', auth: 'apikey' }, options);
  }

  update(
    id: string,
    params: UpdateWebhookEndpointParams,
    options?: RequestOptions,
  ): Promise<WebhookEndpoint> {
    return this.http.request(
      { method: 'PATCH', path: endpointPath(id), auth: 'apikey', body: params },
      options,
    );
  }

  /** An instant swap: verify with both the old and the new secret while receivers are redeployed. */
  rotateSecret(id: string, options?: RequestOptions): Promise<RotatedSecret> {
    return this.http.request(
      { method: 'POST', path: endpointPath(id, '/rotate-secret'), auth: 'apikey' },
      options,
    );
  }

  /**
   * Deletes the endpoint and cancels its pending deliveries. A retry that finds the endpoint
   * already gone after a lost answer resolves `{ deleted: true }` (see README, Retries).
   */
  del(id: string, options?: RequestOptions): Promise<{ deleted: true }> {
    return this.http.request(
      { method: 'DELETE', path: endpointPath(id), auth: 'apikey', goneAnswer: { deleted: true } },
      options,
    );
  }

  /** Creates or swaps the secret that signs deliveries to a payment's `webhookUrl`. */
  rotateOverrideSecret(options?: RequestOptions): Promise<OverrideSecret> {
    return this.http.request(
      { method: 'POST', path: '/v1/webhooks/override-secret/rotate', auth: 'apikey' },
      options,
    );
  }

  /** The subscribable event names (no authentication). */
  eventCatalog(options?: RequestOptions): Promise<EventCatalogEntry[]> {
    return this.http.request({ method: 'GET', path: '/v1/webhooks/event-catalog', auth: 'none' }, options);
  }
}

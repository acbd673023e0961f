/** A merchant scope's webhook endpoints: the record, how many a scope may register, and the refusals. */

import { InvalidInput, NotFound } from './errors.ts';

export type EndpointStatus = 'ACTIVE' | 'INACTIVE';

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  status: EndpointStatus;
  /** Stored readable: it signs every delivery (docs/data-model.md). */
  secret: string;
  createdAt: string;
  updatedAt: string;
}

/** A new endpoint's record: ACTIVE, with the id and signing secret the use case minted. */
export function newEndpoint(
  input: { url: string; events: string[] },
  minted: { id: string; secret: string },
  now: Date,
): WebhookEndpoint {
  const at = now.toISOString();
  return { ...minted, url: input.url, events: input.events, status: 'ACTIVE', createdAt: at, updatedAt: at };
}

/** 404: absent, or another scope's. */
export const endpointNotFound = (): NotFound => new NotFound('No such webhook endpoint.');

/**
 * Endpoints per account **and mode** (Stripe's cap, 16 per account): each endpoint receives its
 * own delivery of every event it subscribes to, retried up to 15 times, so without a cap one
 * sandbox charge could be fanned out into any number of requests to any public host.
 */
export const WEBHOOK_ENDPOINT_LIMIT = 16;

/** 400: the scope already holds `WEBHOOK_ENDPOINT_LIMIT` endpoints; deleting one makes room. */
export const webhookEndpointLimitExceeded = (): InvalidInput =>
  new InvalidInput(
    `An account may register at most ${WEBHOOK_ENDPOINT_LIMIT} webhook endpoints per mode; delete one (DELETE /v1/webhooks/endpoints/{id}) before registering another.`,
    { code: 'webhook_endpoint_limit_exceeded', param: 'url' },
  );

/** `webhooks` group: endpoints, deliveries, stats and the event catalog (Part 2). */

import * as v from 'valibot';
import { deliveryStatuses } from '../../domain/webhook-deliveries.ts';
import { WEBHOOK_ENDPOINT_LIMIT } from '../../domain/webhook-endpoints.ts';
import { CreateEndpointBody, DeliveriesQuery, UpdateEndpointBody } from '../../domain/webhook-input.ts';
import { Count, NullableTimestamp, Timestamp } from './common.ts';
import type { Operations } from './operation.ts';

const Secret = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));

const endpointFields = {
  id: v.pipe(v.string(), v.startsWith('we_')),
  url: v.string(),
  events: v.array(v.string()),
  status: v.picklist(['ACTIVE', 'INACTIVE']),
};

export const WebhookEndpoint = v.strictObject(endpointFields);
export const WebhookEndpointListItem = v.strictObject({
  ...endpointFields,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const WebhookDelivery = v.strictObject({
  id: v.pipe(v.string(), v.startsWith('whd_')),
  /** `null` for a delivery to a payment's `webhookUrl` (then `url` says where). */
  endpointId: v.nullable(v.string()),
  url: v.optional(v.string()),
  eventId: v.string(),
  eventType: v.string(),
  status: v.picklist(deliveryStatuses),
  attempts: Count,
  maxAttempts: Count,
  lastStatusCode: v.nullable(v.pipe(v.number(), v.integer())),
  lastError: v.nullable(v.string()),
  lastResponseBody: v.nullable(v.string()),
  nextRetryAt: NullableTimestamp,
  deliveredAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  redriveCount: Count,
  /** The event body as sent, parsed. */
  payload: v.unknown(),
});

export const EventCatalogEntry = v.strictObject({
  event: v.string(),
  description: v.string(),
  legacy: v.optional(v.literal(true)),
});

const endpointNotFound = { 404: ['not_found'] } as const;

export const webhookOperations: Operations<'webhooks'> = {
  createWebhookEndpoint: {
    summary: 'Register a webhook endpoint',
    description: `The \`secret\` is shown this once. \`events\` must be catalog names; every address the host resolves to must be public. At most ${WEBHOOK_ENDPOINT_LIMIT} endpoints per account and mode (test and live counted apart): one more is 400 \`webhook_endpoint_limit_exceeded\` (\`param: "url"\`) until one is deleted.`,
    body: CreateEndpointBody,
    bodyExample: { url: 'https://www.example.com/pix-webhooks', events: ['charge.paid', 'charge.expired'] },
    responses: {
      201: {
        description: 'The endpoint and its signing secret.',
        schema: v.strictObject({ ...endpointFields, secret: Secret }),
      },
    },
    errors: { 400: ['webhook_endpoint_limit_exceeded'] },
  },
  listWebhookEndpoints: {
    summary: 'List webhook endpoints',
    responses: {
      200: {
        description: 'The endpoints (never their secrets).',
        schema: v.strictObject({ data: v.array(WebhookEndpointListItem) }),
      },
    },
  },
  updateWebhookEndpoint: {
    summary: 'Update a webhook endpoint',
    description: 'Any of `url`, `events`, `status`; only the fields sent change.',
    body: UpdateEndpointBody,
    responses: { 200: { description: 'The endpoint.', schema: WebhookEndpoint } },
    errors: endpointNotFound,
  },
  rotateWebhookSecret: {
    summary: 'Rotate an endpoint’s secret',
    description: 'Instant swap, no overlap: accept both secrets while you deploy.',
    responses: {
      200: {
        description: 'The new secret, shown this once.',
        schema: v.strictObject({ id: v.string(), secret: Secret }),
      },
    },
    errors: endpointNotFound,
  },
  deleteWebhookEndpoint: {
    summary: 'Delete a webhook endpoint',
    description: 'Its pending deliveries become `CANCELLED`; it no longer counts toward the endpoint cap.',
    responses: { 200: { description: 'Deleted.', schema: v.strictObject({ deleted: v.literal(true) }) } },
    errors: endpointNotFound,
  },
  getEventCatalog: {
    summary: 'The event catalog',
    description: 'Every subscribable event; the legacy `payment.*` family is flagged `legacy: true`.',
    responses: { 200: { description: 'The events.', schema: v.array(EventCatalogEntry) } },
  },
  listWebhookDeliveries: {
    summary: 'List webhook deliveries',
    description: 'Newest first, offset paging (`offset` ≤ 1000); `total` counts every match of the filters.',
    query: DeliveriesQuery,
    responses: {
      200: {
        description: 'A page of deliveries.',
        schema: v.strictObject({
          data: v.array(WebhookDelivery),
          total: Count,
          limit: Count,
          offset: Count,
        }),
      },
    },
  },
  getWebhookStats: {
    summary: 'Delivery counts by status',
    responses: {
      200: {
        description: 'The counts.',
        schema: v.strictObject({
          total: Count,
          PENDING: Count,
          PROCESSING: Count,
          DELIVERED: Count,
          FAILED: Count,
          CANCELLED: Count,
        }),
      },
    },
  },
  rotateWebhookOverrideSecret: {
    summary: 'Create or rotate the webhookUrl override secret',
    description: 'Signs deliveries to payments’ `webhookUrl`; shown this once, instant swap.',
    responses: {
      200: { description: 'The new secret.', schema: v.strictObject({ secret: Secret }) },
    },
  },
};

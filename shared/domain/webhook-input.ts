/** Webhook management input: endpoint bodies and the deliveries query. */

import * as v from 'valibot';
import { oneOf, queryInteger } from './validation.ts';
import { eventNames } from './webhook-catalog.ts';
import { DELIVERY_LIST_MAX_OFFSET, deliveryStatuses } from './webhook-deliveries.ts';

const Events = v.pipe(
  v.array(v.string('Each event must be a string'), 'Must be an array of event names'),
  v.minLength(1, 'Subscribe to at least one event'),
  v.check(
    (events) => events.every((e) => eventNames.has(e)),
    (issue) => {
      const unknown = [...new Set((issue.input as string[]).filter((e) => !eventNames.has(e)))];
      const named = unknown.slice(0, 5).map((e) => JSON.stringify(e));
      if (unknown.length > 5) named.push(`${unknown.length - 5} more`);
      return `Unknown event name ${named.join(', ')}: see GET /v1/webhooks/event-catalog`;
    },
  ),
  v.transform((events) => [...new Set(events)]),
);

const Url = v.pipe(v.string('Must be a URL'), v.minLength(1, 'Must be a URL'), v.maxLength(2048));

export const CreateEndpointBody = v.strictObject({ url: Url, events: Events });
export const UpdateEndpointBody = v.pipe(
  v.strictObject({
    url: v.optional(Url),
    events: v.optional(Events),
    status: v.optional(v.picklist(['ACTIVE', 'INACTIVE'], 'Must be ACTIVE or INACTIVE')),
  }),
  v.check((body) => Object.keys(body).length > 0, 'Send at least one of url, events, status'),
);

/** `we_` and 24 hex digits: what a webhook endpoint id looks like. */
const WEBHOOK_ENDPOINT_ID_PATTERN = /^we_[0-9a-f]{24}$/;
export const isWebhookEndpointId = (id: string | undefined): id is string =>
  id !== undefined && WEBHOOK_ENDPOINT_ID_PATTERN.test(id);

export const DeliveriesQuery = v.strictObject({
  status: v.optional(oneOf(deliveryStatuses)),
  eventType: v.optional(
    v.pipe(
      v.string(),
      v.check((e) => eventNames.has(e), `Must be one of ${[...eventNames].join(', ')}`),
    ),
  ),
  endpointId: v.optional(v.pipe(v.string(), v.regex(WEBHOOK_ENDPOINT_ID_PATTERN, 'Must be an endpoint id'))),
  limit: queryInteger(1, 100, 25),
  /** Capped: a page reads its partitions `offset + limit` deep (docs/data-model.md). */
  offset: queryInteger(0, DELIVERY_LIST_MAX_OFFSET, 0),
});

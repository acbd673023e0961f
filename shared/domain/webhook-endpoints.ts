/** How many webhook endpoints a merchant scope may register, and the refusal past that. */

import { InvalidInput } from './errors.ts';

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

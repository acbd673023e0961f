import { eventCatalog } from '#shared/domain/webhook-catalog.ts';
import type { RouteHandler } from '#shared/http/types.ts';

/** GET /v1/webhooks/event-catalog: public. */
export const getEventCatalog: RouteHandler<undefined> = async () => ({ status: 200, body: eventCatalog });

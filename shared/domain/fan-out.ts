/**
 * The fan-out decision: which destinations get an outbox event. Every ACTIVE endpoint of the
 * event's merchant scope that subscribes to its type and existed when the event was recorded
 * (an endpoint created later never receives earlier events, even when a stream record is read
 * again: a retried batch, a replay), and, for a legacy event of a payment created with a
 * `webhookUrl`, that URL, whatever the endpoints subscribe to.
 */

import type { DeliveryTarget } from './webhook-deliveries.ts';

interface FanOutEvent {
  eventType: string;
  family: 'canonical' | 'legacy';
  recordedAt?: string;
  /** A payment's per-transaction destination (legacy events only). */
  webhookUrl?: string;
}

interface FanOutEndpoint {
  id: string;
  status: string;
  events: readonly string[];
  createdAt: string;
}

export function fanOutTargets(event: FanOutEvent, endpoints: readonly FanOutEndpoint[]): DeliveryTarget[] {
  const targets: DeliveryTarget[] = endpoints
    .filter(
      (e) =>
        e.status === 'ACTIVE' &&
        e.events.includes(event.eventType) &&
        (event.recordedAt === undefined || e.createdAt <= event.recordedAt),
    )
    .map((endpoint) => ({ endpointId: endpoint.id }));
  if (event.family === 'legacy' && event.webhookUrl) targets.push({ url: event.webhookUrl });
  return targets;
}

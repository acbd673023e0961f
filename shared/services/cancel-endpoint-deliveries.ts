/** Deleting an endpoint abandons its pending deliveries (not yet attempted, or waiting to retry). */

import { endpointDeliveriesIn } from '../store/webhook-deliveries.ts';
import { applyChange } from './dispatch-delivery.ts';

export async function cancelEndpointDeliveries(endpointId: string, now = new Date()): Promise<number> {
  const pending = await endpointDeliveriesIn(endpointId, 'PENDING');
  const cancelled = await Promise.all(
    pending.map((delivery) =>
      applyChange(delivery, delivery, ['PENDING'], () => ({ status: 'CANCELLED', nextRetryAt: null }), now),
    ),
  );
  return cancelled.filter(Boolean).length;
}

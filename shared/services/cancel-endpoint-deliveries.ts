/** Deleting an endpoint abandons its pending deliveries (not yet attempted, or waiting to retry). */

import { cancellation, ENDPOINT_DELETED } from '../domain/delivery-attempt.ts';
import { changeDelivery, endpointDeliveriesIn } from '../store/webhook-deliveries.ts';

export async function cancelEndpointDeliveries(endpointId: string, now = new Date()): Promise<number> {
  const pending = await endpointDeliveriesIn(endpointId, 'PENDING');
  const cancelled = await Promise.all(
    pending.map((delivery) =>
      changeDelivery(delivery, delivery, ['PENDING'], cancellation(ENDPOINT_DELETED), now),
    ),
  );
  return cancelled.filter(Boolean).length;
}

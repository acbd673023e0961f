/**
 * Deliveries written before the counters (no `counted`) are counted in by the stream at their
 * next status change, which marks them `counted`; finished ones never change again, so this
 * marks them as they are: per delivery one `UpdateItem` "same status" (its cell index keys and
 * `counted`; `updatedAt` untouched) on condition that it is still uncounted and in the status
 * read. The stream then counts it in (`total` +1 and its status +1), once: a delivery the
 * pipeline changes meanwhile is counted in by that change and fails the condition here, so
 * running it twice, or beside the pipeline, counts nothing twice.
 * `npm run admin -- count-webhook-deliveries`.
 */

import type { MerchantScope } from '../domain/scope.ts';
import {
  changeDelivery,
  type DeliveryRef,
  getDelivery,
  uncountedDeliveries,
} from '../store/webhook-deliveries.ts';

export async function countInDelivery(ref: DeliveryRef): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await getDelivery(ref);
    if (!current || current.counted) return false;
    const { status } = current;
    if (await changeDelivery(ref, current, [status], { status }, { uncountedOnly: true })) return true;
  }
  return false;
}

/** Marks every uncounted delivery (of one scope if given) for the stream to count; how many it marked. */
export async function countInDeliveries(scope?: MerchantScope): Promise<number> {
  let counted = 0;
  for await (const refs of uncountedDeliveries(scope)) {
    const done = await Promise.all(refs.map(countInDelivery));
    counted += done.filter(Boolean).length;
  }
  return counted;
}

/**
 * Deliveries written before the counters (no `counted`) are counted in at their next status
 * change; this counts in the others (finished ones) without waiting: each gets the change "same
 * status" (its cell index keys, `counted`, and `total` +1 and its status +1 on its counters) in
 * one transaction, on condition that it is still uncounted and in the status read. A delivery the
 * pipeline changes meanwhile is read again (or was counted in by that change): running it twice,
 * or beside the pipeline, counts nothing twice. `npm run admin -- count-webhook-deliveries`.
 */

import type { MerchantScope } from '../domain/scope.ts';
import { countDelta } from '../domain/webhook-deliveries.ts';
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
    const status = current.status;
    if (await changeDelivery(ref, current, { status }, countDelta(undefined, status), undefined)) return true;
  }
  return false;
}

/** Counts in every uncounted delivery (of one scope if given); how many it counted. */
export async function countInDeliveries(scope?: MerchantScope): Promise<number> {
  let counted = 0;
  for await (const refs of uncountedDeliveries(scope)) {
    const done = await Promise.all(refs.map(countInDelivery));
    counted += done.filter(Boolean).length;
  }
  return counted;
}

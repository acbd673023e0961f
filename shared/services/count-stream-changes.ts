/**
 * The outbox's counting of one stream batch, exactly once: delivery changes into the delivery
 * counters (`count-delivery-changes.ts`), charge changes into the payment counters and the day
 * aggregates (`count-payment-changes.ts`), all in one transaction per run of the batch, under
 * one marker per counted item (`stream-counting.ts`). One transaction rather than one per kind:
 * DynamoDB Local runs transactions one at a time, and each costs it more than its items
 * (docs/benchmarks.md).
 */

import type { PaymentRecordChange } from '../domain/payment-aggregates.ts';
import { itemIdsOfRecordChange } from '../domain/payment-aggregates.ts';
import { counterItemIdsOf, type DeliveryCountChange } from '../domain/webhook-deliveries.ts';
import {
  type DeliveryChangeRecord,
  deliveryCountChange,
  deliveryCounterItems,
} from './count-delivery-changes.ts';
import {
  type PaymentChangeRecord,
  paymentCounterItems,
  paymentRecordChange,
} from './count-payment-changes.ts';
import { type Counted, type CountResult, commitCounted } from './stream-counting.ts';

/** A stream record the outbox counts: a delivery's or a charge's creation or change. */
export type CountedRecord =
  | ({ kind: 'delivery' } & DeliveryChangeRecord)
  | ({ kind: 'payment' } & PaymentChangeRecord);

type StreamChange = { delivery: DeliveryCountChange } | { payment: PaymentRecordChange };

const changeOf = (record: CountedRecord): StreamChange | undefined => {
  if (record.kind === 'delivery') {
    const delivery = deliveryCountChange(record);
    return delivery && { delivery };
  }
  const payment = paymentRecordChange(record);
  return payment && { payment };
};

/**
 * Counts the changes of one stream batch (in stream order; `undefined` for records counted by
 * neither). On a failure the earliest record not known to be counted is reported (the runs
 * before it are committed): the stream retries from there, and the markers make the records
 * already counted add nothing.
 */
export function countStreamChanges(
  records: readonly (CountedRecord | undefined)[],
  clock: () => Date = () => new Date(),
): Promise<CountResult> {
  const counted: Counted<StreamChange>[] = [];
  records.forEach((record, index) => {
    const change = record && changeOf(record);
    if (record && change)
      counted.push({
        index,
        streamEventId: record.streamEventId,
        source: record.source,
        created: record.created,
        change,
      });
  });
  return commitCounted(
    counted,
    {
      counters: (changes) => [
        ...deliveryCounterItems(changes.flatMap((c) => ('delivery' in c ? [c.delivery] : []))),
        ...paymentCounterItems(changes.flatMap((c) => ('payment' in c ? [c.payment] : []))),
      ],
      counterIds: (change) =>
        'delivery' in change
          ? counterItemIdsOf(change.delivery).map((id) => `delivery\u0000${id}`)
          : itemIdsOfRecordChange(change.payment),
    },
    clock(),
  );
}

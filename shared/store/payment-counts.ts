/**
 * Payment counters (keys in keys.ts, rules in `shared/domain/payment-counts.ts`): one item per
 * scope and bucket of creation time (minute, hour, day, month) with `total` and one count per
 * stored status, written only by the outbox from the table's stream
 * (`shared/services/count-stream-changes.ts`), each change once thanks to the markers of the
 * counted items (`counted-markers.ts`).
 */

import type { CounterRange, PaymentCountCell, PaymentCountDelta } from '../domain/payment-counts.ts';
import { paymentCountNames } from '../domain/payment-counts.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { counterUpdate, queryAll, type TransactItem, tableName } from './client.ts';
import { paymentCountKey, paymentCountRange, scopePk } from './keys.ts';

/** `ADD` of `delta` to one counter item (created on first use). */
export const paymentCountAddItem = (cell: PaymentCountCell, delta: PaymentCountDelta): TransactItem =>
  counterUpdate(paymentCountKey(cell.scope, cell.level, cell.label), { type: 'paymentCount' }, delta);

/** The counter items of each range (in parallel, consistent reads), as count records. */
export async function readPaymentCounts(
  scope: MerchantScope,
  ranges: readonly CounterRange[],
): Promise<PaymentCountDelta[]> {
  const pages = await Promise.all(
    ranges.map((range) => {
      const sk = paymentCountRange(range.level, range.from, range.to);
      return queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': scopePk(scope), ':from': sk.from, ':to': sk.to },
        ConsistentRead: true,
      });
    }),
  );
  return pages
    .flat()
    .map(
      (item) =>
        Object.fromEntries(
          paymentCountNames.flatMap((name) => (item[name] === undefined ? [] : [[name, Number(item[name])]])),
        ) as PaymentCountDelta,
    );
}

/**
 * Per-day payment aggregates (keys in keys.ts, rules in `shared/domain/payment-aggregates.ts`):
 * per scope, São Paulo day, currency and method, a few items (shards), each with one number per
 * figure, written only by the outbox from the table's stream in the transaction of the payment
 * counters and under their markers (`shared/services/count-stream-changes.ts`).
 */

import type { DayAggregate, DayCell, DayFigureName, DayFigures } from '../domain/payment-aggregates.ts';
import { dayFigureNames } from '../domain/payment-aggregates.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { counterUpdate, queryAll, type TransactItem, tableName } from './client.ts';
import { PREFIX, parsePaymentDaySk, paymentDayKey, paymentDayRange, scopePk } from './keys.ts';

/** `ADD` of `delta` to one day item, the cell's shard (created on first use). */
export const paymentDayAddItem = (cell: DayCell, delta: DayFigures): TransactItem =>
  counterUpdate(
    paymentDayKey(cell.scope, cell.date, cell.currency, cell.method, cell.shard),
    { type: 'paymentDay' },
    delta,
  );

/**
 * The day items of `fromDate`…`toDate` (inclusive; one consistent query, paged): every shard of
 * each day, one aggregate per item (the reports sum them).
 */
export async function readPaymentDays(
  scope: MerchantScope,
  fromDate: string,
  toDate: string,
): Promise<DayAggregate[]> {
  const range = paymentDayRange(fromDate, toDate);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': scopePk(scope), ':from': range.from, ':to': range.to },
    ConsistentRead: true,
  });
  return items
    .filter((item) => String(item.sk).startsWith(PREFIX.paymentDay))
    .map((item) => ({
      ...parsePaymentDaySk(String(item.sk)),
      figures: Object.fromEntries(
        dayFigureNames.flatMap((name: DayFigureName) =>
          item[name] === undefined ? [] : [[name, Number(item[name])]],
        ),
      ) as DayFigures,
    }));
}

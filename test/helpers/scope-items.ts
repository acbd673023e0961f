/**
 * A merchant scope's stored items read straight from the table (not through the API), across
 * its partitions: its own (`ACCOUNT#<id>#<mode>`) and those of its time-ordered items.
 */

import { tableName } from '../../shared/store/client.ts';
import { type MerchantScope, prefixEnd, scopePartitionPks, scopePk } from '../../shared/store/keys.ts';
import { queryAllPartitions } from '../../shared/store/merged-query.ts';

/**
 * The scope's items whose sort key starts with `prefix` (every item without one), matching
 * `filter` when given, in sort-key order.
 */
export async function scopeItems(
  scope: MerchantScope,
  prefix?: string,
  filter?: { expression: string; values: Record<string, unknown> },
): Promise<Record<string, any>[]> {
  const items = await queryAllPartitions(
    [scopePk(scope), ...scopePartitionPks(scope)].map((pk) => ({
      TableName: tableName(),
      KeyConditionExpression: prefix === undefined ? 'pk = :pk' : 'pk = :pk AND sk BETWEEN :from AND :to',
      ...(filter && { FilterExpression: filter.expression }),
      ExpressionAttributeValues: {
        ':pk': pk,
        ...(prefix !== undefined && { ':from': prefix, ':to': prefixEnd(prefix) }),
        ...filter?.values,
      },
      ConsistentRead: true,
    })),
  );
  return items.sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : String(a.sk) > String(b.sk) ? 1 : 0));
}

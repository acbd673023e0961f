/**
 * Reads of a merchant scope's time-ordered items, which are spread over its partitions
 * (`scopePartitionPks`): the same key range queried in every partition, in parallel, and merged
 * by sort key (`takeInOrder`), so a list pages as if it were one partition.
 */

import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { firstPageSize, type SourcePage, takeInOrder } from '../domain/merge.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { db, queryAll, tableName } from './client.ts';
import { scopePartitionPks } from './keys.ts';

/** The least a filtered query reads per round, so a selective filter does not take a round per item. */
const MIN_FILTERED_PAGE = 25;

type Item = Record<string, unknown>;

/** A filter's conditions (AND-ed) with the names and values they use. */
interface QueryFilter {
  conditions: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** An empty filter, to add conditions to. */
export const noFilter = (): QueryFilter => ({ conditions: [], names: {}, values: {} });

/**
 * One query per partition of the scope's time-ordered items: the sort key from `range.from` to
 * `range.to` (inclusive), each item kept when it passes `filter`.
 */
export function scopeRangeQueries(
  scope: MerchantScope,
  range: { from: string; to: string },
  filter: QueryFilter = noFilter(),
  consistentRead = false,
): QueryCommandInput[] {
  return scopePartitionPks(scope).map((pk) => ({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ...(filter.conditions.length > 0 && { FilterExpression: filter.conditions.join(' AND ') }),
    ...(Object.keys(filter.names).length > 0 && { ExpressionAttributeNames: filter.names }),
    ExpressionAttributeValues: { ...filter.values, ':pk': pk, ':from': range.from, ':to': range.to },
    ...(consistentRead && { ConsistentRead: true }),
  }));
}

interface Partition extends SourcePage<Item> {
  query: QueryCommandInput;
  next?: Record<string, unknown>;
  pageSize: number;
}

/**
 * The first `need` items of the union of `queries` (one per partition, each read in `order`),
 * merged by `key` (the table's or an index's sort key). Each partition is first read with about
 * its share of `need` (`firstPageSize`), then twice as much each time it runs out while it may
 * hold the next item; a query never asks for more than can still be taken. So a page is usually
 * one round of parallel queries; at worst (every item of the page in one partition) a few
 * rounds reading about 2 × `need` from that partition.
 */
export async function queryMerged(
  queries: readonly QueryCommandInput[],
  need: number,
  order: 'asc' | 'desc',
  key: (item: Item) => string = (item) => String(item.sk),
): Promise<Item[]> {
  const partitions: Partition[] = queries.map((query) => ({
    query,
    items: [],
    more: true,
    pageSize: firstPageSize(need, 1, queries.length),
  }));
  const out: Item[] = [];
  while (takeInOrder(partitions, key, out, need, order) === 'refill') {
    await Promise.all(
      partitions
        .filter((p) => p.items.length === 0 && p.more)
        .map(async (p) => {
          // `need` may be unbounded (every match): then pages of 1 MB. A filtered query's Limit
          // counts the items read, not the matches: it is not capped by what can still be taken.
          const limit = p.query.FilterExpression
            ? Math.max(p.pageSize, MIN_FILTERED_PAGE)
            : Math.min(p.pageSize, need - out.length);
          const page = await db.send(
            new QueryCommand({
              ...p.query,
              ScanIndexForward: order === 'asc',
              ...(Number.isFinite(limit) && { Limit: limit }),
              ...(p.next && { ExclusiveStartKey: p.next }),
            }),
          );
          p.items.push(...(page.Items ?? []));
          p.next = page.LastEvaluatedKey;
          p.more = page.LastEvaluatedKey !== undefined;
          p.pageSize *= 2;
        }),
    );
  }
  return out;
}

/** Every item of every partition's query (small ranges only: a case's refunds, a test's checks). */
export async function queryAllPartitions(queries: readonly QueryCommandInput[]): Promise<Item[]> {
  return (await Promise.all(queries.map((query) => queryAll(query)))).flat();
}

/** How many items the partitions' queries hold (keys only). */
export async function countPartitions(queries: readonly QueryCommandInput[]): Promise<number> {
  const counts = await Promise.all(
    queries.map(async (query) => {
      let count = 0;
      let next: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({ ...query, Select: 'COUNT', ...(next && { ExclusiveStartKey: next }) }),
        );
        count += page.Count ?? 0;
        next = page.LastEvaluatedKey;
      } while (next);
      return count;
    }),
  );
  return counts.reduce((sum, n) => sum + n, 0);
}

/**
 * Stream-counting markers (keys in keys.ts, the rule in `shared/services/stream-counting.ts`):
 * one item per counted delivery or charge, holding the `eventID`s of its stream records already
 * counted. Written only by the outbox, in the transaction of the counters those records moved.
 */

import { type ItemKey, type TransactItem, tableName } from './client.ts';
import { countedMarkerKey } from './keys.ts';

/**
 * Adds `streamEventIds` (the records of `source` counted by this transaction) to its marker, on
 * condition that none of them is there yet; `expiresAt` (epoch seconds) is pushed back each
 * time, so TTL removes the marker only once the stream (24 h) can no longer deliver them.
 */
export function countedMarkerItem(
  source: ItemKey,
  streamEventIds: readonly string[],
  expiresAt: number,
): TransactItem {
  const values: Record<string, unknown> = {
    ':ids': new Set(streamEventIds),
    ':type': 'countedMarker',
    ':expiresAt': expiresAt,
  };
  const notCounted = streamEventIds.map((id, n) => {
    values[`:e${n}`] = id;
    return `NOT contains(#counted, :e${n})`;
  });
  return {
    Update: {
      TableName: tableName(),
      Key: countedMarkerKey(source),
      UpdateExpression: 'SET #type = :type, expiresAt = :expiresAt ADD #counted :ids',
      ConditionExpression: notCounted.join(' AND '),
      // A refusal returns the marker, so the counting knows which records it already holds.
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      ExpressionAttributeNames: { '#type': 'type', '#counted': 'counted' },
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * The first marker of `source`, put only if it has none: for a run that holds the item's
 * creation, when nothing of the item can have been counted yet. A `PutItem` costs DynamoDB Local
 * less than the `UpdateItem` of a set (docs/benchmarks.md); if the marker exists after all (the
 * run comes again), its condition fails like the update's.
 */
export function firstCountedMarkerItem(
  source: ItemKey,
  streamEventIds: readonly string[],
  expiresAt: number,
): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...countedMarkerKey(source),
        type: 'countedMarker',
        expiresAt,
        counted: new Set(streamEventIds),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** The `eventID`s a marker holds (as a refused marker item comes back from its transaction). */
export const countedEventIds = (marker: Record<string, unknown>): Set<string> =>
  new Set<string>((marker.counted as Set<string> | undefined) ?? []);

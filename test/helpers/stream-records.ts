/** Table stream records as Lambda hands them to the outbox (marshalled images), for replay tests. */

import { randomUUID } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';

/** One INSERT or MODIFY record of `item` (with its old image on MODIFY), a fresh event id. */
export function streamRecord(
  eventName: 'INSERT' | 'MODIFY',
  item: Record<string, unknown>,
  old?: Record<string, unknown>,
) {
  const eventID = randomUUID();
  return {
    eventID,
    eventName,
    dynamodb: {
      SequenceNumber: eventID,
      NewImage: marshall(item, { removeUndefinedValues: true }),
      ...(old && { OldImage: marshall(old, { removeUndefinedValues: true }) }),
    },
  };
}

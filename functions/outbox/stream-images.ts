/**
 * Readers of the outbox's stream records, shared by the fan-out, the counting, the MED notices
 * and the metrics: which records they are about, and the stored event body of an image.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { MerchantScope } from '#shared/domain/scope.ts';
import { streamItemTypes } from '#shared/resources.ts';
import { storedFields } from '#shared/store/stored-body.ts';

export type Image = Record<string, AttributeValue>;

/** The image of a new outbox event (an event item's INSERT), else `undefined`. */
export function newEventImage(record: DynamoDBRecord): Image | undefined {
  const image = record.dynamodb?.NewImage as Image | undefined;
  return record.eventName === 'INSERT' && image?.type?.S === streamItemTypes.event ? image : undefined;
}

/** A creation or change of an item of `type`, with its stream event id and both images. */
interface ItemChange {
  streamEventId: string;
  /** The item's table key (a counted item's marker is named by it). */
  source: { pk: string; sk: string };
  created: boolean;
  scope: MerchantScope;
  image: Image;
  /** The image before a change; `undefined` for a creation. */
  oldImage: Image | undefined;
}

export function itemChange(record: DynamoDBRecord, type: string): ItemChange | undefined {
  const image = record.dynamodb?.NewImage as Image | undefined;
  if ((record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') || image?.type?.S !== type)
    return undefined;
  if (record.eventID === undefined) return undefined;
  const created = record.eventName === 'INSERT';
  return {
    streamEventId: record.eventID,
    source: { pk: String(image.pk?.S), sk: String(image.sk?.S) },
    created,
    scope: scopeOfImage(image),
    image,
    oldImage: created ? undefined : (record.dynamodb?.OldImage as Image | undefined),
  };
}

export const scopeOfImage = (image: Image): MerchantScope => ({
  accountId: String(image.accountId?.S),
  mode: image.mode?.S as MerchantScope['mode'],
});

/**
 * The stored body of an event item's stream image, to read its fields: Brotli-compressed Binary
 * (base64 in Lambda's JSON event, bytes from the local poller), or a string on items written
 * before bodies were compressed (stored-body.ts).
 */
export function eventBodyOf(image: Image): unknown {
  const binary = image.body?.B as Uint8Array | string | undefined;
  if (binary !== undefined)
    return storedFields(typeof binary === 'string' ? Buffer.from(binary, 'base64') : binary);
  return image.body?.S === undefined ? undefined : storedFields(image.body.S);
}

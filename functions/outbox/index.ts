/**
 * The outbox (DynamoDB Streams → this Lambda): parses the batch's new event items, its
 * delivery changes and its charge changes, and hands them to two use cases at once: the
 * fan-out (`shared/services/fan-out-event.ts`: one delivery per subscribed ACTIVE endpoint, and
 * a payment's `webhookUrl` for its legacy events, then one queue message per new delivery) and
 * the counting (`shared/services/count-stream-changes.ts`: the delivery counters, the payment
 * counters and the per-day aggregates of the stats and metrics, in one transaction per run of
 * the batch), each creation and change counted once. Beside them, MED openings and resolutions
 * are e-mailed (`shared/services/email-med-notices.ts`), which never fails the batch.
 * Then it reports the earliest record that failed in either, where the stream must retry from:
 * both are idempotent (deliveries by their derived ids, counting by the markers of the counted
 * items), so records after it that had succeeded change nothing the second time.
 */

import { unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { isMedNoticeEventType } from '#shared/domain/med-emails.ts';
import {
  CHARGE_IMAGE_FIELDS,
  type ChargeImage,
  type ChargeImageFields,
  chargeImageOf,
} from '#shared/domain/payment-aggregates.ts';
import type { DeliveryStatus } from '#shared/domain/webhook-deliveries.ts';
import { errorFields, log } from '#shared/log.ts';
import { withMetrics } from '#shared/metrics.ts';
import { streamItemTypes } from '#shared/resources.ts';
import type { DeliveryChangeRecord } from '#shared/services/count-delivery-changes.ts';
import type { PaymentChangeRecord } from '#shared/services/count-payment-changes.ts';
import { type CountedRecord, countStreamChanges } from '#shared/services/count-stream-changes.ts';
import { emailMedNotices, type MedNotice } from '#shared/services/email-med-notices.ts';
import { fanOutEvents, type OutboxEventRef } from '#shared/services/fan-out-event.ts';
import { countEventMetrics } from './metrics.ts';
import { isQueueEvent, replayFailedBatches } from './replay.ts';
import { eventBodyOf, type Image, itemChange, newEventImage, scopeOfImage } from './stream-images.ts';

/** The attributes of an event item the fan-out uses (not its body). */
const OUTBOX_FIELDS = [
  'type',
  'sk',
  'id',
  'eventType',
  'accountId',
  'mode',
  'createdAt',
  'recordedAt',
  'family',
  'webhookUrl',
] as const;

function outboxEvent(record: DynamoDBRecord): OutboxEventRef | undefined {
  const image = newEventImage(record);
  if (!image) return undefined;
  const fields = OUTBOX_FIELDS.flatMap((f) => (image[f] ? [[f, image[f]] as const] : []));
  return unmarshall(Object.fromEntries(fields)) as unknown as OutboxEventRef;
}

/** A new MED event that is also e-mailed, with the med_case its body carries. */
function medNotice(record: DynamoDBRecord): MedNotice | undefined {
  const image = newEventImage(record);
  const eventType = image?.eventType?.S;
  if (!image || !eventType || !isMedNoticeEventType(eventType)) return undefined;
  const body = eventBodyOf(image) as { data: { object: unknown } } | undefined;
  if (body === undefined) return undefined;
  return {
    eventId: String(image.id?.S),
    eventType,
    scope: scopeOfImage(image),
    medCase: body.data.object as MedNotice['medCase'],
  };
}

/** The status of a delivery image (`undefined` when there is no image). */
const statusOf = (image: Image | undefined): DeliveryStatus | undefined =>
  image?.status?.S as DeliveryStatus | undefined;

/** A delivery item's creation or change, with its old and new status. */
function deliveryChange(record: DynamoDBRecord): DeliveryChangeRecord | undefined {
  const change = itemChange(record, streamItemTypes.webhookDelivery);
  const after = statusOf(change?.image);
  if (!change || !after) return undefined;
  const { streamEventId, source, created, scope, image } = change;
  const before = statusOf(change.oldImage);
  return {
    streamEventId,
    source,
    created,
    scope,
    deliveryId: String(image.id?.S),
    eventType: String(image.eventType?.S),
    endpointId: image.endpointId?.S ?? null,
    ...(before && { before }),
    after,
  };
}

/**
 * What the payment counters and day aggregates read of a charge image (never its QR image,
 * customer…). An image without a status, creation time or amount (none is written so) is not
 * counted.
 */
function chargeImage(image: Image | undefined): ChargeImage | undefined {
  if (!image?.status?.S || !image.createdAt?.S || !image.amount?.N) return undefined;
  const fields = CHARGE_IMAGE_FIELDS.flatMap((f) => (image[f] ? [[f, image[f]] as const] : []));
  return chargeImageOf(unmarshall(Object.fromEntries(fields)) as ChargeImageFields);
}

/** A charge item's creation or change, with its old and new image. */
function paymentChange(record: DynamoDBRecord): PaymentChangeRecord | undefined {
  const change = itemChange(record, streamItemTypes.charge);
  const after = chargeImage(change?.image);
  if (!change || !after) return undefined;
  const { streamEventId, source, created, scope } = change;
  const before = chargeImage(change.oldImage);
  return { streamEventId, source, created, scope, ...(before && { before }), after };
}

/** A record the counting reads: a delivery's or a charge's creation or change. */
function countedRecord(record: DynamoDBRecord): CountedRecord | undefined {
  const delivery = deliveryChange(record);
  if (delivery) return { kind: 'delivery', ...delivery };
  const payment = paymentChange(record);
  return payment && { kind: 'payment', ...payment };
}

const failureAt = (stream: DynamoDBStreamEvent, index: number): DynamoDBBatchResponse => ({
  batchItemFailures: [{ itemIdentifier: stream.Records[index]?.dynamodb?.SequenceNumber ?? '' }],
});

const handleBatch = async (stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const [fanOut, counting] = await Promise.all([
    fanOutEvents(stream.Records.map(outboxEvent)),
    countStreamChanges(stream.Records.map(countedRecord)),
    // Never fails the batch: a body that cannot be read or an e-mail that cannot be sent is
    // logged and dropped (read inside the chain, so a throw is caught here too).
    Promise.resolve()
      .then(() => stream.Records.map(medNotice))
      .then(emailMedNotices)
      .catch((error: unknown) => log.error('med notices not read; none e-mailed', errorFields(error))),
    // Never fails the batch either: metrics are not worth a retry.
    Promise.resolve()
      .then(() => countEventMetrics(stream.Records))
      .catch((error: unknown) => log.error('outbox metrics not counted', errorFields(error))),
  ]);
  const failures: number[] = [];
  if (!fanOut.ok) {
    if ('enqueueFailed' in fanOut) {
      log.error('outbox enqueue failed', errorFields(fanOut.error));
      failures.push(0);
    } else {
      log.error('outbox fan-out failed', {
        sequenceNumber: stream.Records[fanOut.failedAt]?.dynamodb?.SequenceNumber,
        ...errorFields(fanOut.error),
      });
      failures.push(fanOut.failedAt);
    }
  }
  if (!counting.ok) {
    log.error('outbox counting failed', {
      sequenceNumber: stream.Records[counting.failedAt]?.dynamodb?.SequenceNumber,
      ...errorFields(counting.error),
    });
    failures.push(counting.failedAt);
  }
  return failures.length === 0 ? { batchItemFailures: [] } : failureAt(stream, Math.min(...failures));
};

/**
 * The table's stream, and the replays of batches given up on (`OutboxReplay`, ./replay.ts). Each
 * invocation writes its metrics (functions/outbox/metrics.ts) when it ends.
 */
export const handler = withMetrics(
  (event: DynamoDBStreamEvent | SQSEvent): Promise<DynamoDBBatchResponse | SQSBatchResponse> =>
    isQueueEvent(event) ? replayFailedBatches(event, handleBatch) : handleBatch(event),
);

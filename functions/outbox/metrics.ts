/**
 * The business metrics of a stream batch, from its new event items: every state change writes
 * its events once, so counting them here counts each change once without touching the use
 * cases. A batch the stream retries is counted again (metrics are at least once).
 */

import type { DynamoDBRecord } from 'aws-lambda';
import type { Mode } from '#shared/domain/scope.ts';
import { countMetric, type MetricValues } from '#shared/metrics.ts';
import { type MetricName, observability, streamItemTypes } from '#shared/resources.ts';
import { eventBodyOf, type Image, newEventImage } from './stream-images.ts';

const { metrics } = observability;

/** The canonical events that are a metric by themselves. */
const EVENT_METRICS: Record<string, MetricName> = {
  'charge.created': metrics.chargesCreated,
  'charge.paid': metrics.chargesPaid,
  'charge.expired': metrics.chargesExpired,
  'med_case.created': metrics.medCasesOpened,
  'med.resolved': metrics.medCasesResolved,
};

const REFUND_METRICS: Record<string, MetricName> = {
  PENDING: metrics.refundsPending,
  IN_PROGRESS: metrics.refundsInProgress,
  REFUNDED: metrics.refundsRefunded,
  FAILED: metrics.refundsFailed,
};

/** The refund a `payment.refunded` event is about (a Pix returned to its payer has none). */
const refundStatusOf = (image: Image): string | undefined =>
  (eventBodyOf(image) as { data?: { refund?: { status?: string } } } | undefined)?.data?.refund?.status;

function metricOf(record: DynamoDBRecord): { mode: Mode; name: MetricName } | undefined {
  const image = newEventImage(record, streamItemTypes.event);
  if (!image) return undefined;
  const eventType = image.eventType?.S ?? '';
  const mode = image.mode?.S as Mode;
  const name =
    eventType === 'payment.refunded' ? REFUND_METRICS[refundStatusOf(image) ?? ''] : EVENT_METRICS[eventType];
  return name && { mode, name };
}

/** Adds the batch's counts to the invocation's metrics (written when the handler ends). */
export async function countEventMetrics(records: readonly DynamoDBRecord[]): Promise<void> {
  const counts: Record<Mode, MetricValues> = { live: {}, test: {} };
  for (const metric of records.map(metricOf)) {
    if (!metric) continue;
    const byMode = counts[metric.mode];
    byMode[metric.name] = (byMode[metric.name] ?? 0) + 1;
  }
  for (const mode of ['live', 'test'] as const)
    if (Object.keys(counts[mode]).length > 0) countMetric(mode, counts[mode]);
}

/**
 * The business metrics of a stream batch, from its new event items: every state change writes
 * its events once, so counting them here counts each change once without touching the use
 * cases. A batch the stream retries is counted again (metrics are at least once).
 */

import type { DynamoDBRecord } from 'aws-lambda';
import type { Mode } from '#shared/domain/scope.ts';
import { countMetric } from '#shared/metrics.ts';
import { type MetricName, observability } from '#shared/resources.ts';
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

function metricOf(record: DynamoDBRecord): { mode: Mode; name: MetricName; accountId: string } | undefined {
  const image = newEventImage(record);
  if (!image) return undefined;
  const eventType = image.eventType?.S ?? '';
  const mode = image.mode?.S as Mode;
  const name =
    eventType === 'payment.refunded' ? REFUND_METRICS[refundStatusOf(image) ?? ''] : EVENT_METRICS[eventType];
  return name && { mode, name, accountId: String(image.accountId?.S) };
}

/**
 * Adds the batch's events to the invocation's counts (`countMetric` sums them; written when the
 * handler ends), naming the accounts they came from.
 */
export function countEventMetrics(records: readonly DynamoDBRecord[]): void {
  for (const metric of records.map(metricOf))
    if (metric) countMetric(metric.mode, { [metric.name]: 1 }, { accountIds: metric.accountId });
}

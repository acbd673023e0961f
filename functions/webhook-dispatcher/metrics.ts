/**
 * The dispatcher's metrics: one document per message that did something, with the delivery's
 * id and event type as properties, so a failure on the dashboard is found in the logs by id.
 */

import { type MetricValues, publishMetrics } from '#shared/metrics.ts';
import { observability } from '#shared/resources.ts';
import type { DispatchReport } from '#shared/services/dispatch-delivery.ts';

const { metrics } = observability;

function deliveryMetrics(report: DispatchReport, now: Date): MetricValues {
  const delivered = report.status === 'DELIVERED';
  return {
    ...(report.attempted && {
      [metrics.webhookAttempts]: 1,
      [metrics.webhookAttemptFailures]: delivered ? 0 : 1,
    }),
    ...(delivered && {
      [metrics.webhookDelivered]: 1,
      [metrics.webhookLatency]: Math.max(0, now.getTime() - Date.parse(report.createdAt)),
    }),
    ...(report.status === 'FAILED' && { [metrics.webhookFailed]: 1 }),
    ...(report.status === 'CANCELLED' && { [metrics.webhookCancelled]: 1 }),
  };
}

export const publishDeliveryMetrics = (report: DispatchReport, now = new Date()): void =>
  publishMetrics(report.mode, deliveryMetrics(report, now), {
    deliveryId: report.deliveryId,
    eventType: report.eventType,
    status: report.status,
  });

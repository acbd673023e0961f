/**
 * The webhook dispatcher (SQS → this Lambda, partial batch responses): delivers each message's
 * delivery once; a failed attempt keeps its message, hidden until the next attempt is due.
 */

import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '#shared/config.ts';
import { dispatchErrorDelaySeconds } from '#shared/domain/retry-schedule.ts';
import { errorFields, log } from '#shared/log.ts';
import { dispatchDelivery } from '#shared/services/dispatch-delivery.ts';
import type { DeliveryMessage } from '#shared/store/webhook-deliveries.ts';
import { delayNextReceive } from '#shared/webhooks/queue.ts';
import { publishDeliveryMetrics } from './metrics.ts';

// Read at cold start: a bad value fails the Lambda's init, not a delivery.
const timeoutMs = config.webhookTimeoutMs;
const retryScale = config.webhookRetryScale;

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures = await Promise.all(
    event.Records.map(async (record) => {
      try {
        // `{pk, sk, eventSk, endpointId}`, or `{pk, sk}` from before (see DeliveryMessage).
        const message = JSON.parse(record.body) as DeliveryMessage;
        const outcome = await dispatchDelivery(message, {
          timeoutMs,
          retryScale,
          sentAtMs: Number(record.attributes.SentTimestamp),
        });
        if (outcome.report) publishDeliveryMetrics(outcome.report);
        if (outcome.kind === 'done') return undefined;
        await delayNextReceive(record.receiptHandle, outcome.delaySeconds);
      } catch (error) {
        // Unexpected (storage down…): hidden for longer at each receive, so an outage does not
        // spend the message's receives before the DLQ in minutes (SQS's own 60 s if this fails too).
        const delaySeconds = Math.round(
          dispatchErrorDelaySeconds(Number(record.attributes.ApproximateReceiveCount) || 1) * retryScale,
        );
        log.error('webhook dispatch failed', {
          messageId: record.messageId,
          delaySeconds,
          ...errorFields(error),
        });
        await delayNextReceive(record.receiptHandle, delaySeconds).catch(() => undefined);
      }
      return { itemIdentifier: record.messageId };
    }),
  );
  return { batchItemFailures: failures.filter((f): f is { itemIdentifier: string } => f !== undefined) };
};

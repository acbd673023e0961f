/**
 * The webhook dispatcher (SQS → this Lambda, partial batch responses): delivers each message's
 * delivery once; a failed attempt keeps its message, hidden until the next attempt is due.
 */

import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '#shared/config.ts';
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
        // Unexpected (storage down…): leave the message for SQS's own visibility timeout.
        log.error('webhook dispatch failed', { messageId: record.messageId, ...errorFields(error) });
      }
      return { itemIdentifier: record.messageId };
    }),
  );
  return { batchItemFailures: failures.filter((f): f is { itemIdentifier: string } => f !== undefined) };
};

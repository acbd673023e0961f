/**
 * The webhook delivery queue: one message per delivery attempt cycle, pointing at the delivery
 * item, its event item and its endpoint (`DeliveryMessage`).
 */

import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { withoutSdkLogging } from '../aws-client.ts';
import { config } from '../config.ts';
import type { DeliveryMessage } from '../store/webhook-deliveries.ts';

const sqs = withoutSdkLogging(new SQSClient({}));

const queueUrl = (): string => config.webhookQueueUrl;

export async function enqueueDeliveries(messages: DeliveryMessage[]): Promise<void> {
  const batches = Array.from({ length: Math.ceil(messages.length / 10) }, (_, n) =>
    messages.slice(n * 10, n * 10 + 10),
  );
  await Promise.all(
    batches.map(async (batch) => {
      const { Failed = [] } = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl(),
          Entries: batch.map((message, n) => ({ Id: String(n), MessageBody: JSON.stringify(message) })),
        }),
      );
      if (Failed.length > 0)
        throw new Error(`Could not enqueue ${Failed.length} webhook deliveries: ${Failed[0]?.Message}`);
    }),
  );
}

/** Hides the message until the next attempt is due (SQS's visibility is the retry timer). */
export async function delayNextReceive(receiptHandle: string, seconds: number): Promise<void> {
  await sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl(),
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: seconds,
    }),
  );
}

/**
 * The provider callback queue: one message per end-to-end id a live acquirer announced, read
 * back and settled by the consumer (`functions/provider-callback-consumer`).
 */

import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { withoutSdkLogging } from '../aws-client.ts';
import { config } from '../config.ts';

const sqs = withoutSdkLogging(new SQSClient({}));

export interface ReceivedPixMessage {
  accountId: string;
  endToEndId: string;
}

export async function enqueueReceivedPix(messages: ReceivedPixMessage[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    const { Failed = [] } = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: config.providerCallbackQueueUrl,
        Entries: batch.map((message, n) => ({ Id: String(n), MessageBody: JSON.stringify(message) })),
      }),
    );
    if (Failed.length > 0)
      throw new Error(`Could not enqueue ${Failed.length} received Pix: ${Failed[0]?.Message}`);
  }
}

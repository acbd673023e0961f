/**
 * The provider callback consumer (SQS → this Lambda, partial batch responses): each message is
 * one end-to-end id a live acquirer announced, read back there and settled. A failure (the
 * acquirer or the table unavailable) keeps the message for SQS to deliver again; after
 * `maxReceiveCount` receives it moves to the DLQ, and reconciliation settles the Pix anyway.
 */

import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { errorFields, log } from '#shared/log.ts';
import { withMetrics } from '#shared/metrics.ts';
import { withAcquirerBudget } from '#shared/providers/call-budget.ts';
import type { ReceivedPixMessage } from '#shared/providers/callback-queue.ts';
import { settleAcquirerPix } from '#shared/services/settle-acquirer-pix.ts';

const consume = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures = await Promise.all(
    event.Records.map(async (record) => {
      try {
        const message = JSON.parse(record.body) as ReceivedPixMessage;
        const outcome = await settleAcquirerPix(message.accountId, message.endToEndId);
        log.info('acquirer Pix', { accountId: message.accountId, endToEndId: message.endToEndId, outcome });
        return undefined;
      } catch (error) {
        log.error('acquirer Pix not settled; retried', {
          messageId: record.messageId,
          ...errorFields(error),
        });
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: failures.filter((f): f is { itemIdentifier: string } => f !== undefined) };
};

/**
 * Its metrics (the acquirer's calls: GET /pix/{e2eid}, the payer lock's GET /pix) are written when
 * each batch ends. The batch's acquirer calls share the `background` budget, within its timeout
 * (shared/resources.ts): a message not settled by then is retried by SQS.
 */
export const handler = withMetrics((event: SQSEvent) =>
  withAcquirerBudget('background', () => consume(event)),
);

/**
 * The local stand-ins for the stack's event source mappings, against the real DynamoDB Local
 * stream and the real SQS emulator: partial batch failures, retries, redrive to the DLQ after
 * maxReceiveCount, and the console's DLQ redrive (StartMessageMoveTask).
 */

import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  localStreamsClient,
  type Poller,
  type StreamPollerOptions,
  startQueuePoller,
  startStreamPoller,
} from '../../infra/local/pollers.ts';
import { provisionTable } from '../../infra/local/provision.ts';
import { outboxStreamFilters } from '../../shared/resources.ts';
import { db } from '../../shared/store/client.ts';
import { eventually } from '../helpers/eventually.ts';
import { assertLocalEndpoints } from '../helpers/local-env.ts';

assertLocalEndpoints();
const sqs = new SQSClient({});
const pollers: Poller[] = [];
afterEach(async () => {
  await Promise.all(pollers.splice(0).map((p) => p.stop()));
});

async function queuePair(maxReceiveCount: number) {
  const name = `poller-test-${randomUUID().slice(0, 8)}`;
  const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl ?? '';
  const arnOf = async (url: string) =>
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] })))
      .Attributes?.QueueArn ?? '';
  const dlqArn = await arnOf(dlqUrl);
  const queueUrl =
    (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: name,
          Attributes: {
            VisibilityTimeout: '1',
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount }),
          },
        }),
      )
    ).QueueUrl ?? '';
  return { queueUrl, dlqUrl, dlqArn, queueArn: await arnOf(queueUrl) };
}

describe('queue poller', () => {
  it('deletes successes, retries failures, moves them to the DLQ after maxReceiveCount, and redrive delivers them', async () => {
    const { queueUrl, dlqUrl, dlqArn, queueArn } = await queuePair(3);
    const receives = new Map<string, number[]>();
    let failBad = true;
    pollers.push(
      startQueuePoller({
        sqs,
        queueUrl,
        idleMs: 50,
        handler: async (event: SQSEvent) => {
          const failures = [];
          for (const record of event.Records) {
            receives.set(record.body, [
              ...(receives.get(record.body) ?? []),
              Number(record.attributes.ApproximateReceiveCount),
            ]);
            if (record.body === 'bad' && failBad) failures.push({ itemIdentifier: record.messageId });
          }
          return { batchItemFailures: failures };
        },
      }),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'good' }));
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'bad' }));

    const inDlq = await eventually(
      async () => {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: dlqUrl, VisibilityTimeout: 0 }),
        );
        expect(Messages).not.toHaveLength(0);
        return Messages;
      },
      { timeoutMs: 20_000, message: 'a message in the DLQ' },
    );
    expect(inDlq.map((m) => m.Body)).toEqual(['bad']);
    // 'good' was sent first, so an undeleted 'good' would have been visible again (1 s timeout)
    // before 'bad''s second receive: 'bad' reaching the DLQ after its third proves it was deleted.
    expect(receives.get('good')).toEqual([1]);
    expect(receives.get('bad')).toEqual([1, 2, 3]);

    failBad = false;
    await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn, DestinationArn: queueArn }));
    await eventually(() => expect(receives.get('bad')?.length).toBeGreaterThan(3), {
      timeoutMs: 20_000,
      message: 'the redriven message is received again',
    });
    expect(receives.get('bad')?.at(-1)).toBe(1);
  });
});

describe('a poller whose ticks fail', () => {
  it('backs off, doubling its pause up to 2 s, and resumes once its queue is back', async () => {
    const name = `poller-gone-${randomUUID().slice(0, 8)}`;
    const { QueueUrl: queueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    const failures: { at: number; failures: number }[] = [];
    const logged = vi.spyOn(console, 'error').mockImplementation((line: string) => {
      const entry = JSON.parse(line);
      if (entry.message === 'poller tick failed') failures.push({ at: Date.now(), failures: entry.failures });
    });
    const received: string[] = [];
    try {
      pollers.push(
        startQueuePoller({
          sqs,
          queueUrl,
          idleMs: 50,
          handler: async (event) => {
            received.push(...event.Records.map((record) => record.body));
            return { batchItemFailures: [] };
          },
        }),
      );
      await eventually(() => expect(failures.length).toBeGreaterThanOrEqual(7), {
        timeoutMs: 20_000,
        message: 'seven failed ticks',
      });
      expect(failures.slice(0, 7).map((f) => f.failures)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const pauses = failures.slice(1, 7).map((f, n) => f.at - (failures[n]?.at ?? 0));
      // 100, 200, 400, 800, 1600, then the 2 s cap (each plus the failed call's own time).
      for (const [n, expected] of [100, 200, 400, 800, 1600, 2000].entries())
        expect(pauses[n]).toBeGreaterThanOrEqual(expected - 10);
      expect(pauses[5]).toBeLessThan(3000);

      await sqs.send(new CreateQueueCommand({ QueueName: name }));
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'back' }));
      await eventually(() => expect(received).toEqual(['back']), {
        timeoutMs: 20_000,
        message: 'the message sent once the queue is back',
      });
    } finally {
      logged.mockRestore();
    }
  });
});

describe('stream poller', () => {
  /** A new table with a stream, and a poller on it. */
  async function pollNewTable(
    options: Pick<StreamPollerOptions, 'handler'> & Partial<Pick<StreamPollerOptions, 'filters'>>,
  ): Promise<string> {
    const tableName = `stream-test-${randomUUID().slice(0, 8)}`;
    const dynamodb = new DynamoDBClient({});
    await provisionTable(dynamodb, tableName);
    pollers.push(
      startStreamPoller({
        dynamodb,
        streams: localStreamsClient(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? ''),
        tableName,
        idleMs: 50,
        ...options,
      }),
    );
    return tableName;
  }

  it('delivers every record in order and retries from the first reported failure', async () => {
    const seen: string[] = [];
    let failedOnce = false;
    const tableName = await pollNewTable({
      handler: async (event) => {
        for (const record of event.Records) {
          const pk = record.dynamodb?.Keys?.pk?.S ?? '';
          if (pk === 'item-2' && !failedOnce) {
            failedOnce = true;
            return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
          }
          seen.push(pk);
        }
        return { batchItemFailures: [] };
      },
    });
    for (const pk of ['item-1', 'item-2', 'item-3']) {
      await db.send(new PutCommand({ TableName: tableName, Item: { pk, sk: 'x' } }));
    }
    // 'item-3' is the last record written: once it arrived, every earlier one was handed over.
    await eventually(() => expect(seen).toContain('item-3'), { timeoutMs: 20_000 });
    expect(seen).toEqual(['item-1', 'item-2', 'item-3']);
    expect(failedOnce).toBe(true);
  });

  it('applies the mapping filters first (any pattern passes a record): other records never reach the handler', async () => {
    const seen: string[] = [];
    const tableName = await pollNewTable({
      filters: outboxStreamFilters,
      handler: async (event) => {
        seen.push(...event.Records.map((r) => `${r.eventName} ${r.dynamodb?.Keys?.pk?.S}`));
        return { batchItemFailures: [] };
      },
    });
    const put = (Item: Record<string, unknown>) => db.send(new PutCommand({ TableName: tableName, Item }));
    // A charge's creation and change (the third pattern: payment counters).
    await put({ pk: 'charge', sk: 'x', type: 'charge', status: 'WAITING_PAYMENT' });
    await put({ pk: 'charge', sk: 'x', type: 'charge', status: 'PAID' });
    await put({ pk: 'event-1', sk: 'x', type: 'event' });
    // A MODIFY of an event item, and an INSERT of an item without a type.
    await put({ pk: 'event-1', sk: 'x', type: 'event', n: 1 });
    await put({ pk: 'plain', sk: 'x' });
    // A delivery's creation and change (the second pattern), and the counters' (no pattern).
    await put({ pk: 'delivery', sk: 'x', type: 'webhookDelivery', status: 'PENDING' });
    await put({ pk: 'delivery', sk: 'x', type: 'webhookDelivery', status: 'PROCESSING' });
    await put({ pk: 'counter', sk: 'x', type: 'webhookDeliveryCount' });
    await put({ pk: 'payment-counter', sk: 'x', type: 'paymentCount' });
    await put({ pk: 'event-2', sk: 'x', type: 'event' });
    // 'event-2' is the last record written: the poller hands records over in stream order, so once
    // it arrived every earlier record has been either delivered or dropped by the filters.
    await eventually(() => expect(seen).toContain('INSERT event-2'), { timeoutMs: 20_000 });
    expect(seen).toEqual([
      'INSERT charge',
      'MODIFY charge',
      'INSERT event-1',
      'INSERT delivery',
      'MODIFY delivery',
      'INSERT event-2',
    ]);
  });
});

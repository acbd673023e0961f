/**
 * The dispatcher when the table fails before any attempt: its message is hidden for a delay of
 * its own (growing with its receives), not left to the queue's visibility timeout, so an outage
 * does not spend the receives before the DLQ in minutes. The handler runs in this process, the
 * fault in this process's DynamoDB client, against a queue of its own on the suite's SQS whose
 * visibility timeout is 1 s: a message the handler did not hide is visible again a second later.
 */

import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../shared/store/client.ts';
import { deliveryKey, eventKey } from '../../shared/store/keys.ts';
import { deliveryMessage } from '../../shared/store/webhook-deliveries.ts';
import { eventually } from '../helpers/eventually.ts';

const FAULT = 'tableDown';
const sqs = new SQSClient({});
let queueUrl = '';
const saved = process.env.WEBHOOK_QUEUE_URL;

beforeAll(async () => {
  queueUrl =
    (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: `dispatch-errors-${randomUUID().slice(0, 8)}`,
          Attributes: { VisibilityTimeout: '1' },
        }),
      )
    ).QueueUrl ?? '';
  // Read by the dispatcher's queue adapter when it first needs it.
  process.env.WEBHOOK_QUEUE_URL = queueUrl;
  db.middlewareStack.add(
    () => async () => {
      throw new Error('Injected: the table is down');
    },
    { step: 'initialize', name: FAULT },
  );
});
afterAll(() => {
  db.middlewareStack.remove(FAULT);
  if (saved === undefined) delete process.env.WEBHOOK_QUEUE_URL;
  else process.env.WEBHOOK_QUEUE_URL = saved;
});

const receive = async () =>
  (
    await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        WaitTimeSeconds: 0,
        MaxNumberOfMessages: 10,
        AttributeNames: ['All'],
      }),
    )
  ).Messages ?? [];

describe('a delivery message whose dispatch fails before any attempt (the table down)', () => {
  it('is reported failed and hidden by the dispatcher itself, for longer than the queue would', async () => {
    const { handler } = await import('../../functions/webhook-dispatcher/index.ts');
    const scope = { accountId: 'acct_dispatch_errors', mode: 'test' } as const;
    const body = JSON.stringify(
      deliveryMessage({
        ...deliveryKey(scope, '2026-11-24T08:00:00.000Z', 'whd_1'),
        eventSk: eventKey(scope, '2026-11-24T08:00:00.000Z', 'evt_1').sk,
        endpointId: 'we_1',
      }),
    );
    // A control message beside it, received with it and left alone: visible again after 1 s.
    for (const messageBody of [body, 'control'])
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: messageBody }));
    const received = await eventually(
      async () => {
        const messages = await receive();
        expect(messages).toHaveLength(2);
        return messages;
      },
      { message: 'both messages received at once' },
    );
    const message = received.find((m) => m.Body === body);
    if (!message?.MessageId || !message.ReceiptHandle) throw new Error('the message was not received');

    const record = {
      messageId: message.MessageId,
      receiptHandle: message.ReceiptHandle,
      body,
      attributes: message.Attributes,
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: '',
      awsRegion: 'us-east-1',
    } as unknown as SQSRecord;
    expect(await handler({ Records: [record] })).toEqual({
      batchItemFailures: [{ itemIdentifier: message.MessageId }],
    });

    // Once the control is back, the dispatched message would be too, had the handler not hidden it.
    const back = await eventually(
      async () => {
        const messages = await receive();
        expect(messages.map((m) => m.Body)).toContain('control');
        return messages;
      },
      { message: 'the control message visible again' },
    );
    expect(back.map((m) => m.Body)).toEqual(['control']);
  });
});

/**
 * A stream batch the outbox gives up on, then replayed: a runtime of its own whose delivery
 * queue is deleted while a charge is created. The outbox's retries fail, the batch's description
 * goes to OutboxReplay (the stack's on-failure destination), its replays fail too and it lands in
 * OutboxFailures. Once the queue is back, the console's DLQ redrive (StartMessageMoveTask) sends
 * it to OutboxReplay again: the outbox reads the batch back from the stream, the webhook goes out
 * once, and nothing is counted twice.
 */

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { provisionQueues } from '../../infra/local/provision.ts';
import { localSettings } from '../../infra/local/settings.ts';
import { outboxReplayQueue } from '../../shared/resources.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import { ownRuntime, ownRuntimePorts } from '../helpers/own-runtime.ts';
import { receiverPool } from '../helpers/webhook-receiver.ts';

const receivers = receiverPool();

const ports = ownRuntimePorts(365);
const baseUrl = `http://127.0.0.1:${ports.PORT}`;
const sqs = new SQSClient({
  endpoint: `http://127.0.0.1:${ports.SQS_PORT}`,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const names = localSettings();

const queueUrl = async (name: string) =>
  (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl ?? '';

async function queueAttribute(name: string, attribute: 'QueueArn' | 'ApproximateNumberOfMessages') {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: await queueUrl(name), AttributeNames: [attribute] }),
  );
  return Attributes?.[attribute] ?? '';
}

const replayVisibility = async (seconds: number) =>
  sqs.send(
    new SetQueueAttributesCommand({
      QueueUrl: await queueUrl(names.outboxReplayQueueName),
      Attributes: { VisibilityTimeout: String(seconds) },
    }),
  );

const dataDir = mkdtempSync(join(tmpdir(), 'pix-outbox-replay-'));
const runtime = ownRuntime(ports);
beforeAll(() => runtime.start(dataDir), 70_000);
const logged = (message: string) => runtime.logged(message);

describe('a stream batch the outbox gave up on', () => {
  it('is replayed from OutboxFailures once the cause is fixed: delivered once, counted once', async () => {
    const { test_api_key: apikey } = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'));
    const { receiver, url } = await receivers.start();
    expect(
      (
        await api('/v1/webhooks/endpoints', {
          baseUrl,
          apikey,
          method: 'POST',
          body: { url, events: ['charge.created'] },
        })
      ).status,
    ).toBe(201);
    // The stack waits 6 min between replays; 1 s here, so the 3 receives are spent quickly.
    await replayVisibility(1);

    // The cause: the delivery queue is gone, so the fan-out cannot enqueue.
    await sqs.send(new DeleteQueueCommand({ QueueUrl: await queueUrl(names.deliveryQueueName) }));
    const charge = await api('/v1/charges', {
      baseUrl,
      apikey,
      method: 'POST',
      headers: { 'idempotency-key': 'outbox-replay-1' },
      body: { amount: 1_500, payment_method: 'pix' },
    });
    expect(charge.status).toBe(201);

    // The stream's 10 retries (about 42 s locally), then 3 failed replays.
    await eventually(
      async () =>
        expect(await queueAttribute(names.outboxFailureQueueName, 'ApproximateNumberOfMessages')).toBe('1'),
      {
        message: 'the batch in OutboxFailures',
        timeoutMs: 120_000,
        intervalMs: 500,
      },
    );
    expect(logged('outbox batch replay failed')).toHaveLength(3);
    // Given up on: its delivery was created but never sent.
    expect(receiver.received).toHaveLength(0);
    const pending = await api('/v1/webhooks/deliveries', { baseUrl, apikey });
    expect(pending.body.data).toMatchObject([
      { eventType: 'charge.created', status: 'PENDING', attempts: 0 },
    ]);

    // Fixed (the queue is back, as provisioned), then the console's "Start DLQ redrive" to the source queue.
    await replayVisibility(outboxReplayQueue.visibilityTimeoutSeconds);
    await provisionQueues(sqs, names);
    await sqs.send(
      new StartMessageMoveTaskCommand({
        SourceArn: await queueAttribute(names.outboxFailureQueueName, 'QueueArn'),
      }),
    );

    const [delivered] = await receiver.waitFor(1, 30_000);
    expect(JSON.parse(delivered?.body ?? '{}')).toMatchObject({
      type: 'charge.created',
      data: { object: { id: charge.body.id } },
    });
    expect(logged('outbox batch replayed')).toHaveLength(1);
    expect(await queueAttribute(names.outboxFailureQueueName, 'ApproximateNumberOfMessages')).toBe('0');
    // Counted once although its records were handled again: one delivery, delivered; one charge.
    await eventually(
      async () =>
        expect((await api('/v1/webhooks/stats', { baseUrl, apikey })).body).toEqual({
          total: 1,
          PENDING: 0,
          PROCESSING: 0,
          DELIVERED: 1,
          FAILED: 0,
          CANCELLED: 0,
        }),
      { message: 'the delivery counted as delivered', timeoutMs: 15_000 },
    );
    expect((await api('/v1/payments?limit=1', { baseUrl, apikey })).body.total).toBe(1);
    expect(receiver.received).toHaveLength(1);
  }, 240_000);

  it('keeps a message that describes no stream batch, and says why: it ends in OutboxFailures', async () => {
    await replayVisibility(1);
    const before = Number(await queueAttribute(names.outboxFailureQueueName, 'ApproximateNumberOfMessages'));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: await queueUrl(names.outboxReplayQueueName),
        MessageBody: '{"not":"a batch"}',
      }),
    );
    await eventually(
      async () =>
        expect(
          Number(await queueAttribute(names.outboxFailureQueueName, 'ApproximateNumberOfMessages')),
        ).toBe(before + 1),
      { message: 'the message in OutboxFailures', timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(logged('outbox batch not replayed').at(-1)).toMatchObject({
      reason: 'not the description of a stream batch (DDBStreamBatchInfo)',
      receiveCount: '3',
    });
  }, 60_000);
});

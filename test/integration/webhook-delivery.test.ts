/**
 * Delivery over real HTTP to real receivers on loopback, through the real stream, queue and
 * dead-letter queue of the local runtime (retry delays compressed by WEBHOOK_RETRY_SCALE).
 */

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { attemptStart, processingLeaseMs, STARTABLE } from '../../shared/domain/delivery-attempt.ts';
import { deliveryIdFor } from '../../shared/domain/webhook-deliveries.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { eventBody } from '../../shared/store/events.ts';
import {
  deliveryKey,
  endpointDeliveriesIndex,
  eventKeyOfSk,
  type MerchantScope,
  PREFIX,
} from '../../shared/store/keys.ts';
import { changeDelivery, deliveryMessage, toStoredDelivery } from '../../shared/store/webhook-deliveries.ts';
import { merchant, newCharge, pay, rawId } from '../helpers/charges.ts';
import { emfDocuments } from '../helpers/emf.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import { testTimings } from '../helpers/local-env.ts';
import { scopeItems } from '../helpers/scope-items.ts';
import { type Answer, type Receiver, receiverPool } from '../helpers/webhook-receiver.ts';
import { verifyAcmeSignature } from '../helpers/webhook-verifier.ts';

const sqs = new SQSClient({});
const receiver = receiverPool().start;
/** The dispatcher's EMF documents (one per attempt, naming its delivery): see metrics.test.ts. */
const metricsFile = () => join(inject('dataDir'), 'metrics.jsonl');

async function endpoint(apikey: string, url: string, events: string[]) {
  const reply = await api('/v1/webhooks/endpoints', { apikey, body: { url, events } });
  if (reply.status !== 201) throw new Error(JSON.stringify(reply.body));
  return reply.body as { id: string; secret: string };
}

const deliveries = async (apikey: string, query = '') =>
  (await api(`/v1/webhooks/deliveries?${query.includes('limit=') ? '' : 'limit=100'}${query}`, { apikey }))
    .body;
const deliveryOf = async (apikey: string, eventType: string) =>
  (await deliveries(apikey, `&eventType=${eventType}`)).data[0];

/** Waits until the merchant's (latest) `eventType` delivery has `status`, and returns it. */
const deliveryWithStatus = (apikey: string, eventType: string, status: string, timeoutMs = 15_000) =>
  eventually(
    async () => {
      const delivery = await deliveryOf(apikey, eventType);
      expect(delivery?.status).toBe(status);
      return delivery;
    },
    { timeoutMs, message: `the ${eventType} delivery ${status}` },
  );

/** Waits until the merchant's `charge.created` delivery records a failed attempt, and returns it. */
const failedAttempt = (apikey: string, timeoutMs = 15_000) =>
  eventually(
    async () => {
      const d = await deliveryOf(apikey, 'charge.created');
      expect(d?.attempts).toBeGreaterThanOrEqual(1);
      expect(d.lastError).not.toBeNull();
      return d;
    },
    { timeoutMs, message: 'a failed attempt recorded' },
  );

const testScope = (accountId: string): MerchantScope => ({ accountId, mode: 'test' });

/** A merchant's delivery items as stored (not through the API). */
async function deliveryItems(accountId: string) {
  return scopeItems(testScope(accountId), PREFIX.delivery);
}

/** Puts a message on the delivery queue as an earlier version of the outbox would have. */
async function sendRawMessage(body: unknown) {
  const queueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: 'webhook-deliveries' }))).QueueUrl;
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
}

/**
 * A merchant's `charge.created` delivery whose first attempt was answered 429 `Retry-After: 30`:
 * PENDING, its message hidden for 30 s, so only the messages a test sends attempt it meanwhile
 * (the receiver answers them 200).
 */
async function deliveryWithItsMessageHidden() {
  const m = await merchant();
  const { receiver: r, url } = await receiver();
  r.answer = (n) => (n === 1 ? { status: 429, headers: { 'retry-after': '30' } } : { status: 200 });
  const ep = await endpoint(m.apikey, url, ['charge.created']);
  await newCharge(m.apikey);
  await r.waitFor(1);
  const [item] = await eventually(async () => {
    const items = await deliveryItems(m.accountId);
    expect(items[0]?.status).toBe('PENDING');
    return items;
  });
  if (!item) throw new Error('no delivery');
  return { m, r, ep, item };
}

describe('a delivery', () => {
  let m: { accountId: string; apikey: string };
  let r: Receiver;
  let secret: string;
  let charge: any;
  beforeAll(async () => {
    m = await merchant();
    const made = await receiver();
    r = made.receiver;
    secret = (
      await endpoint(m.apikey, made.url, [
        'charge.created',
        'charge.paid',
        'payment.created',
        'payment.completed',
      ])
    ).secret;
    charge = await newCharge(m.apikey, { amount: 2500 });
    await pay(m.apikey, charge.id);
    await r.waitFor(4);
    // The receiver answers before the dispatcher records the outcome: wait for the records.
    await eventually(async () => expect((await deliveries(m.apikey, '&status=DELIVERED')).total).toBe(4));
  });

  it('POSTs the raw JSON with the content type, user agent, delivery id and event type headers', () => {
    for (const request of r.received) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toMatch(/^PixService-Webhooks\//);
      expect(request.headers['x-acme-delivery-id']).toMatch(/^whd_[0-9a-f]{24}$/);
      expect(['charge.created', 'charge.paid', 'payment.created', 'payment.completed']).toContain(
        request.headers['x-acme-event-type'],
      );
    }
  });

  it('signs canonical events t=,v1= and legacy events sha256=, both verifiable from the spec', () => {
    for (const request of r.received) {
      const signature = String(request.headers['x-acme-signature']);
      const legacy = String(request.headers['x-acme-event-type']).startsWith('payment.');
      expect(signature).toMatch(legacy ? /^sha256=[0-9a-f]{64}$/ : /^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifyAcmeSignature(signature, request.body, secret)).toBe(true);
      expect(verifyAcmeSignature(signature, request.body.replace('2500', '2501'), secret)).toBe(false);
      expect(verifyAcmeSignature(signature, request.body, 'f'.repeat(64))).toBe(false);
    }
  });

  it('carries the canonical envelope with the REST serializer’s Charge', async () => {
    const paid = r.received.find((q) => q.headers['x-acme-event-type'] === 'charge.paid');
    const body = JSON.parse(paid?.body ?? '{}');
    expect(Object.keys(body)).toEqual(['id', 'object', 'api_version', 'type', 'created_at', 'data']);
    expect(body).toMatchObject({ object: 'event', api_version: '2026-11-01', type: 'charge.paid' });
    expect(body.id).toMatch(/^evt_/);
    expect(body.data.object).toEqual((await api(`/v1/charges/${charge.id}`, { apikey: m.apikey })).body);
  });

  it('carries the legacy envelope with fee fields on PAID', () => {
    const completed = JSON.parse(
      r.received.find((q) => q.headers['x-acme-event-type'] === 'payment.completed')?.body ?? '{}',
    );
    expect(Object.keys(completed)).toEqual(['event', 'data']);
    expect(completed.data).toEqual({
      transactionId: rawId(charge.id),
      amount: 2500,
      status: 'PAID',
      previousStatus: 'WAITING_PAYMENT',
      occurredAt: expect.any(String),
      paidWith: 'PIX',
      providerFee: 20,
      platformFee: 30,
      netAmount: 2450,
    });
    const created = JSON.parse(
      r.received.find((q) => q.headers['x-acme-event-type'] === 'payment.created')?.body ?? '{}',
    );
    expect(Object.keys(created.data).sort()).toEqual([
      'amount',
      'occurredAt',
      'previousStatus',
      'status',
      'transactionId',
    ]);
  });

  it('keeps the body once, in the event item the delivery names', async () => {
    const items = await deliveryItems(m.accountId);
    expect(items).toHaveLength(4);
    for (const item of items) {
      expect(item.body).toBeUndefined();
      const { Item: event } = await db.send(
        // In the partition of its own id, not the delivery's.
        new GetCommand({ TableName: tableName(), Key: eventKeyOfSk(testScope(m.accountId), item.eventSk) }),
      );
      expect(event).toMatchObject({ type: 'event', id: item.eventId });
      // Stored compactly (store/stored-body.ts): what was sent is the body it gives back.
      expect(r.forDelivery(item.id).map((q) => q.body)).toEqual([event && (await eventBody(event))]);
    }
  });

  it('is recorded as DELIVERED and listed with filters, totals and stats', async () => {
    const all = await deliveries(m.apikey);
    expect(all.total).toBe(4);
    const paid = await deliveryOf(m.apikey, 'charge.paid');
    expect(paid).toMatchObject({
      status: 'DELIVERED',
      attempts: 1,
      maxAttempts: 15,
      lastStatusCode: 200,
      lastError: null,
      nextRetryAt: null,
    });
    expect(paid.deliveredAt).toEqual(expect.any(String));
    expect(paid.payload).toEqual(
      JSON.parse(r.received.find((q) => q.headers['x-acme-event-type'] === 'charge.paid')?.body ?? ''),
    );
    const page = await deliveries(m.apikey, '&status=DELIVERED&offset=1&limit=2');
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.data).toHaveLength(2);
    expect((await api('/v1/webhooks/stats', { apikey: m.apikey })).body).toEqual({
      total: 4,
      PENDING: 0,
      PROCESSING: 0,
      DELIVERED: 4,
      FAILED: 0,
      CANCELLED: 0,
    });
  });
});

describe('retries', () => {
  async function failingThenOk(answers: (n: number) => Answer | undefined) {
    const m = await merchant();
    const { receiver: r, url } = await receiver();
    r.answer = (n) => answers(n) ?? { status: 200 };
    await endpoint(m.apikey, url, ['charge.created']);
    await newCharge(m.apikey);
    return { m, r };
  }

  it.each([
    ['a 5xx', 500, /^HTTP 500$/],
    ['a 4xx', 410, /^HTTP 410$/],
    ['a 3xx (redirects are not followed)', 302, /redirects are not followed/],
  ])('retries after %s, recording the attempt, with the same delivery id', async (_label, status, error) => {
    let healthy = false;
    const { m, r } = await failingThenOk(() =>
      healthy ? { status: 200 } : { status, headers: { location: 'http://127.0.0.1:9/elsewhere' } },
    );
    const failing = await failedAttempt(m.apikey);
    expect(failing).toMatchObject({ lastStatusCode: status });
    expect(failing.lastError).toMatch(error);
    healthy = true;
    const delivery = await deliveryWithStatus(m.apikey, 'charge.created', 'DELIVERED');
    expect(delivery).toMatchObject({ lastStatusCode: 200, lastError: null });
    expect(delivery.attempts).toBe(r.received.length);
    expect(new Set(r.received.map((q) => q.headers['x-acme-delivery-id']))).toEqual(new Set([delivery.id]));
    expect(new Set(r.received.map((q) => q.body)).size).toBe(1);
  });

  it('records the failure fields while waiting to retry', async () => {
    const { m, r } = await failingThenOk((n) =>
      n <= 2 ? { status: 503, headers: { 'retry-after': '1' } } : undefined,
    );
    r.answer = (n) =>
      n === 1
        ? { status: 503, body: 'maintenance '.repeat(200) }
        : { status: 429, headers: { 'retry-after': '2' }, body: 'slow down' };
    await r.waitFor(2);
    const waiting = await eventually(async () => {
      const d = await deliveryOf(m.apikey, 'charge.created');
      expect(d).toMatchObject({ attempts: 2, status: 'PENDING' });
      return d;
    });
    expect(waiting).toMatchObject({
      lastStatusCode: 429,
      lastError: 'HTTP 429',
      lastResponseBody: 'slow down',
    });
    // Retry-After: 2 is honoured (a 429's own delay is never compressed).
    expect(Date.parse(waiting.nextRetryAt) - Date.parse(waiting.updatedAt)).toBeGreaterThanOrEqual(1900);
    r.answer = () => ({ status: 200 });
    await r.waitFor(3);
    const [, second, third] = r.received;
    expect((third?.at ?? 0) - (second?.at ?? 0)).toBeGreaterThanOrEqual(1900);
  });

  it('truncates a long response body in the record', async () => {
    // Distinct characters throughout, so a slice from anywhere but the start would not match.
    const long = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    let healthy = false;
    const { m, r } = await failingThenOk(() => (healthy ? undefined : { status: 500, body: long }));
    // Retries are immediate (WEBHOOK_RETRY_SCALE): the receiver fails every attempt until the
    // failure is read, so the record still holds a failed attempt's fields.
    const failed = await failedAttempt(m.apikey);
    expect(failed).toMatchObject({ lastStatusCode: 500, lastError: 'HTTP 500' });
    expect(failed.lastResponseBody).toHaveLength(1024);
    expect(failed.lastResponseBody).toBe(long.slice(0, 1024));
    healthy = true;
    const delivered = await deliveryWithStatus(m.apikey, 'charge.created', 'DELIVERED');
    expect(delivered.attempts).toBe(r.received.length);
  });

  it.each([
    ['its body, truncated', 'accepted '.repeat(200), 'accepted '.repeat(200).slice(0, 1024)],
    ['null when it is empty', '', null],
  ])('a delivery that failed, then succeeded, records the success’s response: %s', async (_l, ok, shown) => {
    let healthy = false;
    const { m } = await failingThenOk(() =>
      healthy ? { status: 200, body: ok } : { status: 500, body: 'internal failure' },
    );
    expect((await failedAttempt(m.apikey)).lastResponseBody).toBe('internal failure');
    healthy = true;
    const delivered = await deliveryWithStatus(m.apikey, 'charge.created', 'DELIVERED');
    expect(delivered).toMatchObject({ lastStatusCode: 200, lastError: null });
    expect(delivered.lastResponseBody).toBe(shown);
  });

  it('gives up on a receiver slower than the timeout and records it', async () => {
    // Slower than the dispatcher's WEBHOOK_TIMEOUT_MS (1500 ms in the test runtime) until the
    // timeout was read from the record.
    let healthy = false;
    const { m, r } = await failingThenOk(() => (healthy ? undefined : { status: 200, delayMs: 3000 }));
    const timedOut = await failedAttempt(m.apikey, 20_000);
    expect(timedOut).toMatchObject({ lastError: 'Timed out after 1500 ms', lastStatusCode: null });
    healthy = true;
    const delivery = await deliveryWithStatus(m.apikey, 'charge.created', 'DELIVERED', 20_000);
    expect(delivery.attempts).toBe(r.received.length);
  });

  it('counts a 2xx whose body never ends as delivered, once, keeping what came', async () => {
    const { m, r } = await failingThenOk(() => ({ status: 200, body: 'accepted', stallBody: true }));
    const delivery = await deliveryWithStatus(m.apikey, 'charge.created', 'DELIVERED', 20_000);
    expect(delivery).toMatchObject({
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      lastResponseBody: 'accepted',
    });
    // The attempt's metrics document is written as it ends, a retry (0 s delay here) queued right after.
    await eventually(() =>
      expect(emfDocuments(metricsFile()).some((d) => d.deliveryId === delivery.id)).toBe(true),
    );
    // Positive control: this charge's delivery is queued after any retry of the first, so comes later.
    const control = await newCharge(m.apikey);
    await r.waitFor(1, 15_000, (q) => JSON.parse(q.body).data.object.id === control.id);
    expect(r.forDelivery(delivery.id)).toHaveLength(1);
  });

  it('keeps the status and Retry-After of a 429 whose body never ends', async () => {
    const { m, r } = await failingThenOk((n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '3' }, body: 'slow', stallBody: true } : undefined,
    );
    const throttled = await failedAttempt(m.apikey, 20_000);
    expect(throttled).toMatchObject({
      lastStatusCode: 429,
      lastError: 'The response body did not end within 1500 ms',
      lastResponseBody: 'slow',
    });
    const delivery = await deliveryWithStatus(m.apikey, 'charge.created', 'DELIVERED', 20_000);
    expect(delivery.attempts).toBe(2);
    // The receiver's 3 s were honoured (the test runtime scales the schedule's own delays to milliseconds).
    const [first, second] = r.received;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(3_000);
  });

  it('records a refused connection as an error and retries', async () => {
    const m = await merchant();
    const { receiver: r, url } = await receiver();
    await r.stop();
    const created = await endpoint(m.apikey, url, ['charge.created']);
    await newCharge(m.apikey);
    const failed = await eventually(async () => {
      const d = await deliveryOf(m.apikey, 'charge.created');
      expect(d?.attempts).toBeGreaterThanOrEqual(2);
      return d;
    });
    expect(failed.lastError).toMatch(/ECONNREFUSED/);
    expect(failed.lastStatusCode).toBeNull();
    await api(`/v1/webhooks/endpoints/${created.id}`, { apikey: m.apikey, method: 'DELETE' });
  });
});

describe('dead-letter queue and redrive', () => {
  it('fails after exactly 15 attempts, dead-letters the message, and a redrive delivers it with the same id', async () => {
    const m = await merchant();
    const { receiver: r, url } = await receiver();
    let down = true;
    r.answer = () => (down ? { status: 500, body: 'down' } : { status: 200 });
    await endpoint(m.apikey, url, ['charge.created']);
    await newCharge(m.apikey);
    const failed = await deliveryWithStatus(m.apikey, 'charge.created', 'FAILED', 30_000);
    expect(failed).toMatchObject({ attempts: 15, lastStatusCode: 500, nextRetryAt: null });
    expect(r.received).toHaveLength(15);

    const dlqUrl =
      (await sqs.send(new GetQueueUrlCommand({ QueueName: 'webhook-deliveries-dlq' }))).QueueUrl ?? '';
    const queueUrl =
      (await sqs.send(new GetQueueUrlCommand({ QueueName: 'webhook-deliveries' }))).QueueUrl ?? '';
    const arn = async (q: string) =>
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: q, AttributeNames: ['QueueArn'] })))
        .Attributes?.QueueArn;
    await eventually(async () => {
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
      );
      expect(Number(Attributes?.ApproximateNumberOfMessages)).toBeGreaterThanOrEqual(1);
    });
    // The message is in the DLQ, off the delivery queue: nothing can send a 16th attempt.
    expect(r.received).toHaveLength(15);

    down = false;
    await sqs.send(
      new StartMessageMoveTaskCommand({ SourceArn: await arn(dlqUrl), DestinationArn: await arn(queueUrl) }),
    );
    const delivered = await deliveryWithStatus(m.apikey, 'charge.created', 'DELIVERED');
    expect(delivered).toMatchObject({ id: failed.id, attempts: 16, redriveCount: 1, lastStatusCode: 200 });
    expect(new Set(r.received.map((q) => q.headers['x-acme-delivery-id']))).toEqual(new Set([failed.id]));
  });
});

describe('a duplicate message of a delivery whose attempts run out', () => {
  it('shares the one cycle of 15 attempts, then both messages go to the dead-letter queue', async () => {
    const m = await merchant();
    const { receiver: r, url } = await receiver();
    r.answer = () => ({ status: 500 });
    await endpoint(m.apikey, url, ['charge.created']);
    await newCharge(m.apikey);
    await r.waitFor(1);
    const [item] = await deliveryItems(m.accountId);
    if (!item) throw new Error('no delivery');
    // A second message for the same delivery, as an outbox retry after its send leaves one.
    await sendRawMessage(deliveryMessage(item));
    const failed = await deliveryWithStatus(m.apikey, 'charge.created', 'FAILED', 30_000);
    expect(failed).toMatchObject({ attempts: 15, redriveCount: 0 });
    // Positive control: once both messages are in the dead-letter queue (where its alarm and the
    // console's redrive see them), nothing can attempt the delivery again.
    const dlqUrl =
      (await sqs.send(new GetQueueUrlCommand({ QueueName: 'webhook-deliveries-dlq' }))).QueueUrl ?? '';
    const parked = new Set<string>();
    await eventually(
      async () => {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
        );
        for (const message of Messages)
          if (JSON.parse(message.Body ?? '{}').sk === item.sk) parked.add(message.MessageId ?? '');
        expect(parked.size).toBe(2);
      },
      { timeoutMs: 30_000 },
    );
    expect(r.received).toHaveLength(15);
    expect(await deliveryWithStatus(m.apikey, 'charge.created', 'FAILED')).toMatchObject({
      attempts: 15,
      redriveCount: 0,
    });
  });
});

describe('queue messages and deliveries from before the event reference', () => {
  it('delivers a message of the first format ({pk, sk} only): the delivery is read first', async () => {
    // The old-format message is what delivers.
    const { m, r, ep, item } = await deliveryWithItsMessageHidden();
    await sendRawMessage({ pk: item?.pk, sk: item?.sk });
    const delivered = await deliveryWithStatus(m.apikey, 'charge.created', 'DELIVERED');
    expect(delivered).toMatchObject({ id: item?.id, attempts: 2, lastStatusCode: 200 });
    const [first, second] = r.received;
    expect(second?.headers['x-acme-delivery-id']).toBe(item?.id);
    expect(second?.body).toBe(first?.body);
    expect(
      verifyAcmeSignature(String(second?.headers['x-acme-signature']), second?.body ?? '', ep.secret),
    ).toBe(true);
  });

  it('sends and lists the body a delivery written before the change keeps itself', async () => {
    const m = await merchant();
    const { receiver: r, url } = await receiver();
    const ep = await endpoint(m.apikey, url, ['charge.paid']);
    const body = '{"id":"evt_legacy","object":"event","type":"charge.paid","data":{"object":{"amount":10}}}';
    const eventTime = new Date().toISOString();
    const id = deliveryIdFor('evt_legacy', { endpointId: ep.id });
    const key = deliveryKey(testScope(m.accountId), eventTime, id);
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...key,
          type: 'webhookDelivery',
          accountId: m.accountId,
          mode: 'test',
          ...endpointDeliveriesIndex(ep.id, eventTime, id),
          id,
          endpointId: ep.id,
          eventId: 'evt_legacy',
          eventType: 'charge.paid',
          status: 'PENDING',
          attempts: 0,
          maxAttempts: 15,
          lastStatusCode: null,
          lastError: null,
          lastResponseBody: null,
          nextRetryAt: null,
          deliveredAt: null,
          createdAt: eventTime,
          updatedAt: eventTime,
          body,
          redriveCount: 0,
          cycleAttempts: 0,
        },
      }),
    );
    await sendRawMessage(key);
    const [request] = await r.waitFor(1);
    expect(request?.body).toBe(body);
    expect(verifyAcmeSignature(String(request?.headers['x-acme-signature']), body, ep.secret)).toBe(true);
    const delivered = await deliveryWithStatus(m.apikey, 'charge.paid', 'DELIVERED');
    expect(delivered).toMatchObject({ id, attempts: 1, payload: JSON.parse(body) });
    expect(delivered).not.toHaveProperty('body');
  });
});

describe('resilience', () => {
  it('delivers every event to a receiver that fails half the time at random', async () => {
    const m = await merchant({ settings: { velocity: { accountMaxPending: 100 } } });
    const { receiver: r, url } = await receiver();
    r.answer = () => (Math.random() < 0.5 ? { status: 500 } : { status: 200 });
    await endpoint(m.apikey, url, ['charge.created']);
    const charges = await Promise.all(Array.from({ length: 20 }, () => newCharge(m.apikey)));
    const delivered = await eventually(
      async () => {
        const list = await deliveries(m.apikey, '&status=DELIVERED');
        expect(list.total).toBe(20);
        return list;
      },
      { timeoutMs: 30_000, message: 'all 20 deliveries DELIVERED' },
    );
    const ids = new Set(
      r.received
        .filter((q) => q.headers['x-acme-event-type'] === 'charge.created')
        .map((q) => JSON.parse(q.body).data.object.id),
    );
    expect(ids).toEqual(new Set(charges.map((c) => c.id)));
    expect(delivered.data.every((d: { attempts: number }) => d.attempts >= 1)).toBe(true);
  });

  it('marks an attempt only over the delivery as it was read, so a stale read never starts one', async () => {
    const { m, item } = await deliveryWithItsMessageHidden();
    const ref = { pk: String(item.pk), sk: String(item.sk) };
    const read = toStoredDelivery(item);
    // Between this message's read and its mark, another message's attempt records its answer.
    expect(
      await changeDelivery(
        ref,
        read,
        ['PENDING'],
        { status: 'PENDING', attempts: read.attempts + 1 },
        new Date(),
      ),
    ).toBe(true);
    const mark = (unchangedSince?: string) =>
      changeDelivery(ref, read, STARTABLE, attemptStart(read).change, new Date(), { unchangedSince });
    expect(await mark(read.updatedAt)).toBe(false);
    // Positive control: the same mark over the delivery as it now is passes.
    const [current] = await deliveryItems(m.accountId);
    expect(current?.updatedAt).not.toBe(read.updatedAt);
    expect(await mark(String(current?.updatedAt))).toBe(true);
  });

  it('holds a second message off while another attempt is in flight, and takes over once its lease lapses', async () => {
    const { m, r, item } = await deliveryWithItsMessageHidden();
    // Another dispatcher marks its attempt, which counts it, and dies before it records an answer;
    // then a second message for the same delivery arrives, as a retried `SendMessageBatch` would send it.
    const markedAt = Date.now();
    const ref = { pk: String(item.pk), sk: String(item.sk) };
    const stored = toStoredDelivery(item);
    expect(
      await changeDelivery(ref, stored, ['PENDING'], attemptStart(stored).change, new Date(markedAt)),
    ).toBe(true);
    await sendRawMessage(deliveryMessage(item));
    // The second message waits out the lease (it would have POSTed at once), then delivers.
    const [, second] = await r.waitFor(2, 30_000);
    expect(second?.headers['x-acme-delivery-id']).toBe(item.id);
    expect(second?.at).toBeGreaterThanOrEqual(
      markedAt + processingLeaseMs(Number(testTimings.WEBHOOK_TIMEOUT_MS)),
    );
    // The 429, the attempt that died, the one that delivered.
    expect(await deliveryWithStatus(m.apikey, 'charge.created', 'DELIVERED')).toMatchObject({
      id: item.id,
      attempts: 3,
    });
  });

  it('creates no duplicate delivery, and none for an endpoint created since, when the stream delivers a record again', async () => {
    const m = await merchant();
    const { receiver: r, url } = await receiver();
    const ep = await endpoint(m.apikey, url, ['charge.created']);
    const charge = await newCharge(m.apikey);
    await r.waitFor(1);
    // The first run is over: its delivery is delivered and recorded as enqueued (a run that had
    // not enqueued would rightly enqueue again).
    const [original] = await eventually(async () => {
      const items = await deliveryItems(m.accountId);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ status: 'DELIVERED', enqueuedAt: expect.any(String) });
      return items;
    });
    const Items = await scopeItems(testScope(m.accountId), PREFIX.event, {
      expression: 'eventType = :t',
      values: { ':t': 'charge.created' },
    });
    expect(Items[0]?.sk).toBe(original?.eventSk);
    // An endpoint subscribed since the event was recorded: a replay must not send it the event.
    const since = await receiver();
    await endpoint(m.apikey, since.url, ['charge.created']);
    const record = {
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '1', NewImage: marshall(Items[0] ?? {}, { removeUndefinedValues: true }) },
    };
    // The replay enqueues into a queue of this test's own, which nothing consumes: after the
    // handler has returned (its sends acknowledged), that queue holds every message the replay
    // set in motion, so an empty queue proves no second attempt can follow.
    const replayQueueUrl =
      (await sqs.send(new CreateQueueCommand({ QueueName: `outbox-replay-${randomUUID().slice(0, 8)}` })))
        .QueueUrl ?? '';
    process.env.WEBHOOK_QUEUE_URL = replayQueueUrl;
    try {
      const { handler } = await import('../../functions/outbox/index.ts');
      // The same stream record, processed again twice (as a retried batch would). Positive control:
      // the handler reports both records processed (a failure could hide a duplicate).
      expect(await handler({ Records: [record, record] } as unknown as DynamoDBStreamEvent)).toEqual({
        batchItemFailures: [],
      });
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: replayQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      expect(Messages).toEqual([]);
    } finally {
      delete process.env.WEBHOOK_QUEUE_URL;
      await sqs.send(new DeleteQueueCommand({ QueueUrl: replayQueueUrl }));
    }
    // The handler awaited its writes: a duplicate delivery item would be stored now, and the
    // list (by the counters the stream keeps) counts the one delivery.
    expect(await deliveryItems(m.accountId)).toHaveLength(1);
    await eventually(async () => expect((await deliveries(m.apikey, `&endpointId=${ep.id}`)).total).toBe(1));
    expect(r.received.filter((q) => JSON.parse(q.body).data.object.id === charge.id)).toHaveLength(1);
  });
});

describe('endpoint state', () => {
  it('sends nothing new to an INACTIVE endpoint', async () => {
    const m = await merchant();
    const { receiver: r, url } = await receiver();
    const ep = await endpoint(m.apikey, url, ['charge.created']);
    await api(`/v1/webhooks/endpoints/${ep.id}`, {
      apikey: m.apikey,
      method: 'PATCH',
      body: { status: 'INACTIVE' },
    });
    // Positive control: an ACTIVE endpoint subscribed to the same event. The outbox creates all
    // of an event's deliveries before it enqueues any, so once the control's request arrives the
    // event's fan-out is over: a delivery to the INACTIVE endpoint would be stored by now, and
    // without one nothing can ever be sent to it.
    const control = await receiver();
    const controlEndpoint = await endpoint(m.apikey, control.url, ['charge.created']);
    await newCharge(m.apikey);
    await control.receiver.waitFor(1);
    expect((await deliveries(m.apikey, `&endpointId=${ep.id}`)).total).toBe(0);
    expect((await deliveries(m.apikey)).data.map((d: { endpointId: string }) => d.endpointId)).toEqual([
      controlEndpoint.id,
    ]);
    expect(r.received).toHaveLength(0);
  });

  it('signs every delivery after a rotation with the new secret', async () => {
    const m = await merchant();
    const { receiver: r, url } = await receiver();
    const ep = await endpoint(m.apikey, url, ['charge.created']);
    const rotated = (
      await api(`/v1/webhooks/endpoints/${ep.id}/rotate-secret`, { apikey: m.apikey, method: 'POST' })
    ).body.secret;
    await newCharge(m.apikey);
    const [request] = await r.waitFor(1);
    expect(
      verifyAcmeSignature(String(request?.headers['x-acme-signature']), request?.body ?? '', rotated),
    ).toBe(true);
    expect(
      verifyAcmeSignature(String(request?.headers['x-acme-signature']), request?.body ?? '', ep.secret),
    ).toBe(false);
  });

  it('cancels pending deliveries when the endpoint is deleted', async () => {
    const m = await merchant();
    const { receiver: r, url } = await receiver();
    r.answer = () => ({ status: 429, headers: { 'retry-after': '5' } });
    const ep = await endpoint(m.apikey, url, ['charge.created']);
    await newCharge(m.apikey);
    await eventually(async () => {
      expect((await deliveryOf(m.apikey, 'charge.created'))?.status).toBe('PENDING');
      expect(r.received).toHaveLength(1);
    });
    await api(`/v1/webhooks/endpoints/${ep.id}`, { apikey: m.apikey, method: 'DELETE' });
    // Stored at once; a filtered list follows the stream's counters, within a poll.
    expect((await deliveryItems(m.accountId)).map((item) => item.status)).toEqual(['CANCELLED']);
    // Its record says why, as a cancellation at the next attempt would (not the last failure's).
    expect((await deliveryItems(m.accountId))[0]).toMatchObject({ lastError: 'Endpoint was deleted' });
    await deliveryWithStatus(m.apikey, 'charge.created', 'CANCELLED');
    // The cancelled delivery's message is still on the queue, hidden until its Retry-After (5 s,
    // counted from the first attempt); then the dispatcher reads it and must drop it. Positive
    // control on the same queue and dispatcher: another merchant's delivery whose first attempt
    // happens only now, after the deletion, and asks for 8 s. Its message becomes visible over 3 s
    // after the cancelled one, which the runtime's queue pollers (idle ones poll every 100 ms)
    // receive and handle well before: when the control's second attempt arrives, any resend of
    // the cancelled delivery would have arrived too.
    const other = await merchant();
    const control = await receiver();
    control.receiver.answer = (n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '8' } } : { status: 200 };
    await endpoint(other.apikey, control.url, ['charge.created']);
    await newCharge(other.apikey);
    await control.receiver.waitFor(2, 20_000);
    expect(r.received).toHaveLength(1);
    await eventually(async () =>
      expect((await api('/v1/webhooks/stats', { apikey: m.apikey })).body).toMatchObject({
        total: 1,
        CANCELLED: 1,
      }),
    );
  });
});

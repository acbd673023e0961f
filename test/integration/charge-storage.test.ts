/**
 * The QR image is no longer stored in the charge, its idempotency record or its events (it is
 * rendered from the BR Code on read, docs/data-model.md): every answer still carries the same
 * image, byte for byte, and the items stay small.
 */

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../shared/domain/charge-input.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { idempotencyKey } from '../../shared/store/keys.ts';
import {
  merchant,
  newCharge,
  newIdempotencyKey,
  pay,
  rawId,
  setStoredCharge,
  storedCharge,
  storedEvents,
} from '../helpers/charges.ts';
import { BODY_UNCHECKED } from '../helpers/contract.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import { itemSize } from '../helpers/item-size.ts';
import { testBaseUrl } from '../helpers/local-env.ts';
import { decodeQr } from '../helpers/qr.ts';
import { requestLogRecord } from '../helpers/runtime-log.ts';
import { receiverPool } from '../helpers/webhook-receiver.ts';

const receiver = receiverPool().start;
/** One write unit: what each item of a create is now, down from 6 with the image. */
const ONE_KB = 1024;

/** The response as sent: status, raw text and the replay header. */
async function rawCreate(apikey: string, idempotencyKey: string, body: unknown, headers = {}) {
  const response = await fetch(`${testBaseUrl}/v1/charges`, {
    method: 'POST',
    headers: { apikey, 'idempotency-key': idempotencyKey, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    text: await response.text(),
    replayed: response.headers.get('idempotent-replayed'),
    requestId: response.headers.get('x-request-id') ?? '',
  };
}

const rawGet = async (apikey: string, path: string) =>
  (await fetch(`${testBaseUrl}${path}`, { headers: { apikey } })).text();

describe('a charge whose QR image is rendered on read', () => {
  let m: { accountId: string; apikey: string };
  let key: string;
  let created: Awaited<ReturnType<typeof rawCreate>>;
  let charge: any;
  let hook: Awaited<ReturnType<typeof receiver>>;
  const body = { amount: 2190, payment_method: 'pix', description: 'Pedido 7', metadata: { order: '7' } };

  beforeAll(async () => {
    m = await merchant();
    hook = await receiver();
    const endpoint = await api('/v1/webhooks/endpoints', {
      apikey: m.apikey,
      body: { url: hook.url, events: ['charge.created', 'charge.paid'] },
    });
    expect(endpoint.status).toBe(201);
    key = newIdempotencyKey();
    created = await rawCreate(m.apikey, key, body);
    expect(created.status).toBe(201);
    charge = JSON.parse(created.text);
  });

  it('answers with a PNG of exactly its BR Code', () => {
    expect(charge.pix.qr_code_base64.length).toBeGreaterThan(1000);
    expect(decodeQr(Buffer.from(charge.pix.qr_code_base64, 'base64'))).toBe(charge.pix.br_code);
  });

  it('replays the create byte for byte, image included', async () => {
    const replay = await rawCreate(m.apikey, key, body);

    expect(replay.replayed).toBe('true');
    expect(replay.text).toBe(created.text);
  });

  it('GET /v1/charges/{id}, the payment view, the list and qr.png show the same image', async () => {
    const got = JSON.parse(await rawGet(m.apikey, `/v1/charges/${charge.id}`));
    const payment = JSON.parse(await rawGet(m.apikey, `/v1/payments/${rawId(charge.id)}`));
    const list = JSON.parse(await rawGet(m.apikey, '/v1/charges?limit=10'));
    const png = Buffer.from(await (await fetch(charge.pix.qr_code_url)).arrayBuffer());

    expect(got).toEqual(charge);
    expect(payment.pixQrCode).toBe(`data:image/png;base64,${charge.pix.qr_code_base64}`);
    expect(list.data.find((c: any) => c.id === charge.id)?.pix.qr_code_base64).toBe(
      charge.pix.qr_code_base64,
    );
    expect(png.toString('base64')).toBe(charge.pix.qr_code_base64);
  });

  it('delivers charge.created with the Charge exactly as the create answered it', async () => {
    const [delivered] = await hook.receiver.waitFor(
      1,
      15_000,
      (r) => r.headers['x-acme-event-type'] === 'charge.created',
    );

    expect(delivered?.body).toContain(`"data":{"object":${created.text}}`);
  });

  it('delivers charge.paid, and lists its delivery, with the same image', async () => {
    expect((await pay(m.apikey, charge.id)).status).toBe(200);
    const [delivered] = await hook.receiver.waitFor(
      1,
      15_000,
      (r) => r.headers['x-acme-event-type'] === 'charge.paid',
    );
    const event = JSON.parse(delivered?.body ?? '{}');
    // Listed once the dispatcher recorded it (the list reads an index, updated after the write).
    const listed = await eventually(
      async () => {
        const page = await api('/v1/webhooks/deliveries?limit=10&eventType=charge.paid', {
          apikey: m.apikey,
        });
        expect(page.body.data[0]?.status).toBe('DELIVERED');
        return page.body.data[0];
      },
      { timeoutMs: 15_000, message: 'the charge.paid delivery listed as DELIVERED' },
    );

    expect(event.data.object.status).toBe('paid');
    expect(event.data.object.pix.qr_code_base64).toBe(charge.pix.qr_code_base64);
    expect(listed.payload).toEqual(event);
  });

  it('stores no image: the charge, its idempotency record and its events each fit in 1 KB', async () => {
    const item = await storedCharge(m.accountId, rawId(charge.id));
    const { Item: record } = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: idempotencyKey({ accountId: m.accountId, mode: 'test' }, 'createCharge', key),
      }),
    );
    const events = await storedEvents(m.accountId, rawId(charge.id));
    const image = charge.pix.qr_code_base64 as string;

    expect(item?.qrCodeBase64).toBeUndefined();
    expect(itemSize(item)).toBeLessThan(ONE_KB);
    expect(itemSize(record)).toBeLessThan(ONE_KB);
    expect(events.map((e) => e.eventType)).toEqual(expect.arrayContaining(['charge.created', 'charge.paid']));
    for (const event of events) {
      expect(itemSize({ ...event, payload: undefined })).toBeLessThan(ONE_KB);
      // The body as sent (the helper rebuilds it) does carry it, for charge events.
      if (String(event.eventType).startsWith('charge.'))
        expect(event.payload.data.object.pix.qr_code_base64).toBe(image);
    }
  });
});

describe('what it costs, in the request log', () => {
  it('logs the capacity units of a create: a small transaction now (51 write units with the image)', async () => {
    const m = await merchant();
    const created = await rawCreate(m.apikey, newIdempotencyKey(), { amount: 1050, payment_method: 'pix' });
    const record = await requestLogRecord(created.requestId);

    expect(created.status).toBe(201);
    expect(record.dynamodbReadUnits).toBeGreaterThan(0);
    expect(record.dynamodbWriteUnits).toBeGreaterThan(0);
    expect(record.dynamodbWriteUnits).toBeLessThan(20);
  });
});

describe('items written before the image left them', () => {
  it('a charge item that stored its image shows it as stored, and drops it at its next write', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey);
    await setStoredCharge(m.accountId, rawId(charge.id), { qrCodeBase64: 'c3RvcmVk' });

    const before = await api(`/v1/charges/${charge.id}`, { apikey: m.apikey });
    expect(before.body.pix.qr_code_base64).toBe('c3RvcmVk');
    expect((await pay(m.apikey, charge.id)).status).toBe(200);
    const after = await api(`/v1/charges/${charge.id}`, { apikey: m.apikey });
    expect((await storedCharge(m.accountId, rawId(charge.id)))?.qrCodeBase64).toBeUndefined();
    expect(after.body.pix.qr_code_base64).toBe(charge.pix.qr_code_base64);
  });

  it('an idempotency record with its response as a map still replays it', async () => {
    const m = await merchant();
    const key = newIdempotencyKey();
    const body = { amount: 1050, payment_method: 'pix' };
    const response = { status: 201, body: { id: 'ch_legacy', object: 'charge', amount: 1050 } };
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...idempotencyKey({ accountId: m.accountId, mode: 'test' }, 'createCharge', key),
          type: 'idempotency',
          requestHash: requestFingerprint('createCharge', body),
          response,
          chargeId: 'legacy',
          createdAt: new Date().toISOString(),
          expiresAt: Math.floor(Date.now() / 1000) + 3600,
        },
      }),
    );

    // The stored response is a fabricated minimal one, not a whole Charge: no contract check of its body.
    const replay = await rawCreate(m.apikey, key, body, BODY_UNCHECKED);

    expect(replay).toMatchObject({ status: 201, replayed: 'true' });
    expect(JSON.parse(replay.text)).toEqual(response.body);
  });
});

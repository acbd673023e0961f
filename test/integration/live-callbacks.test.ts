/**
 * Live Pix settled from the acquirer's callback (README, "Going live"): the local PSP posts
 * `{webhookUrl}/pix` to the URL `set-provider` registered; the service queues the end-to-end ids,
 * reads each Pix back with `GET /pix/{e2eid}` and settles it through the sandbox's own use case.
 * A forged or replayed callback changes nothing; an unknown token is 404, a bad body 400.
 */

import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pixJson } from '../../infra/local/psp/bank.ts';
import { loadApiPixSchemas } from '../../infra/local/psp/schemas.ts';
import type { LocalPsp } from '../../infra/local/psp/server.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { pixReceiptKey } from '../../shared/store/keys.ts';
import { balance, rawId, storedCharge, storedEvents } from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { api, expectError } from '../helpers/http.ts';
import { ledgerDiscrepancies } from '../helpers/ledger-invariant.ts';
import { control, liveChargeAt, liveMerchantAt, startPsp } from '../helpers/psp.ts';
import { requestLogRecord, runtimeLogLines, runtimeLogRecords } from '../helpers/runtime-log.ts';
import { Receiver } from '../helpers/webhook-receiver.ts';

let psp: LocalPsp;
let accountId: string;
let liveKey: string;
/** The path of the callback URL set-provider registered at the PSP (`/v1/provider-callbacks/<token>`). */
let callbackPath: string;
const receiver = new Receiver();

/** A Pix or devolution through the queue, the PSP and the scheduler: generous on a loaded machine. */
const SETTLED = { timeoutMs: 30_000 };

// The timeout: a test CA made with node-forge and three admin CLI runs per merchant, slow on a loaded machine.
beforeAll(async () => {
  psp = await startPsp();
  const merchant = await liveMerchantAt(psp, 'Loja Callback');
  ({ accountId, liveKey } = merchant);
  callbackPath = new URL(merchant.callbackUrl).pathname;
  const url = await receiver.start();
  const endpoint = await api('/v1/webhooks/endpoints', {
    apikey: liveKey,
    body: { url, events: ['charge.paid'] },
  });
  expect(endpoint.status).toBe(201);
}, 180_000);
afterAll(async () => {
  await psp?.stop();
  await receiver.stop();
});

const liveCharge = (amount: number) => liveChargeAt(psp, liveKey, { amount });

const postCallback = (body: unknown, path = `${callbackPath}/pix`) => api(path, { body });

/** Waits for the consumer's record of this end-to-end id with `outcome` (the positive control). */
const consumed = (endToEndId: string, outcome: string) =>
  eventually(
    () =>
      expect(
        runtimeLogRecords().some(
          (r) => r.message === 'acquirer Pix' && r.endToEndId === endToEndId && r.outcome === outcome,
        ),
      ).toBe(true),
    { ...SETTLED, message: `the consumer's ${outcome} record of ${endToEndId}` },
  );

const receiptOf = async (endToEndId: string) =>
  (
    await db.send(
      new GetCommand({ TableName: tableName(), Key: pixReceiptKey(endToEndId), ConsistentRead: true }),
    )
  ).Item;

const chargeStatus = async (id: string) => (await api(`/v1/charges/${id}`, { apikey: liveKey })).body.status;

describe('live Pix by the acquirer callback', { timeout: 90_000 }, () => {
  it('a Pix paid at the PSP is read back and settles the charge: paid, charge.paid delivered, wallet credited', async () => {
    const before = (await balance(liveKey)).available ?? 0;
    const charge = await liveCharge(1050);
    const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, {});
    await eventually(async () => expect(await chargeStatus(charge.id)).toBe('paid'), SETTLED);
    const stored = await storedCharge(accountId, rawId(charge.id), 'live');
    expect(stored?.endToEndId).toBe(pix.endToEndId);
    expect((await balance(liveKey)).available).toBe(before + stored?.fees.netAmount);
    // The callback's request was logged, without its token (a credential). Its record is written
    // before the PSP gets its 200: once that came, a later request's record marks the log caught up.
    await eventually(
      () =>
        expect(
          psp.callbacks.some((c) => c.status === 200 && c.body.pix[0]?.endToEndId === pix.endToEndId),
        ).toBe(true),
      SETTLED,
    );
    const later = await api(`/v1/charges/${charge.id}`, { apikey: liveKey });
    await requestLogRecord(String(later.headers.get('x-request-id')));
    expect(runtimeLogRecords().some((r) => r.routeKey === 'POST /v1/provider-callbacks/{token}/pix')).toBe(
      true,
    );
    expect(
      runtimeLogLines().filter((line) => line.includes(callbackPath.split('/').at(-1) as string)),
    ).toEqual([]);
    await eventually(() =>
      expect(
        receiver.received.some((r) => {
          const event = JSON.parse(r.body);
          return event.type === 'charge.paid' && event.data.object.id === charge.id;
        }),
      ).toBe(true),
    );
  });

  it('a forged callback (an end-to-end id the PSP does not have) changes nothing', async () => {
    const charge = await liveCharge(2300);
    const forged = `E99999999${randomBytes(12).toString('hex').slice(0, 23)}`;
    const before = await balance(liveKey);
    const answer = await postCallback({
      pix: [{ endToEndId: forged, txid: charge.txid, valor: '23.00', horario: new Date().toISOString() }],
    });
    expect(answer.status).toBe(200);
    await consumed(forged, 'ignored');
    expect(await receiptOf(forged)).toBeUndefined();
    expect(await chargeStatus(charge.id)).toBe('pending');
    expect(await balance(liveKey)).toEqual(before);
    // The positive control: the real Pix for the same charge settles it.
    const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, {});
    await eventually(async () => expect(await chargeStatus(charge.id)).toBe('paid'), SETTLED);
    expect((await storedCharge(accountId, rawId(charge.id), 'live'))?.endToEndId).toBe(pix.endToEndId);
  });

  it('a callback replayed while the original is in flight credits once', async () => {
    const REPLAYS = 4;
    const before = await balance(liveKey);
    const charge = await liveCharge(1700);
    // The Pix arrives at the PSP in-process, which starts the PSP's own callback at once; the same
    // callback is posted REPLAYS more times beside it (the end-to-end id exists only once paid),
    // so all of them are in flight together.
    const paid = psp.bank.pay(charge.txid, {});
    if (!paid.ok) throw new Error(`the PSP refused the Pix: ${JSON.stringify(paid.problem)}`);
    const { endToEndId } = paid.value;
    const body = { pix: [pixJson(paid.value)] };
    const answers = await Promise.all(Array.from({ length: REPLAYS }, () => postCallback(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(REPLAYS).fill(200));
    // The positive control: the consumer handled every one of them (the PSP's and the replays).
    const outcomes = await eventually(
      () => {
        const found = runtimeLogRecords()
          .filter((r) => r.message === 'acquirer Pix' && r.endToEndId === endToEndId)
          .map((r) => r.outcome);
        expect(found.length).toBeGreaterThanOrEqual(REPLAYS + 1);
        return found;
      },
      { ...SETTLED, message: `the consumer's records of ${endToEndId}` },
    );
    expect(outcomes.filter((o) => o === 'settled')).toEqual(['settled']);
    expect(await chargeStatus(charge.id)).toBe('paid');
    const stored = await storedCharge(accountId, rawId(charge.id), 'live');
    expect(stored?.endToEndId).toBe(endToEndId);
    // Moved by exactly one net amount.
    const net = stored?.fees.netAmount as number;
    expect(await balance(liveKey)).toMatchObject({
      available: before.available + net,
      pending: before.pending,
      retained: before.retained,
      total: before.total + net,
    });
    expect(await ledgerDiscrepancies([accountId])).toEqual([]);
    // One charge.paid event: the events are written by the settling transaction, so this holds now.
    const paidEvents = (await storedEvents(accountId, rawId(charge.id), 'live')).filter(
      (e) => e.eventType === 'charge.paid',
    );
    expect(paidEvents).toHaveLength(1);
    // And its one delivery reached the receiver (however often it was called with it).
    const deliveryIds = await eventually(() => {
      const ids = new Set(
        receiver.received
          .filter((r) => {
            const event = JSON.parse(r.body);
            return event.type === 'charge.paid' && event.data.object.id === charge.id;
          })
          .map((r) => r.headers['x-acme-delivery-id']),
      );
      expect(ids.size).toBeGreaterThanOrEqual(1);
      return ids;
    });
    expect(deliveryIds.size).toBe(1);
  });

  it('an unknown token is 404; a body whose pix is not a list of Pix (or not JSON) is 400; an empty list is answered', async () => {
    const body = { pix: [{ endToEndId: `E12345678${'0'.repeat(23)}` }] };
    expectError(
      await postCallback(body, `/v1/provider-callbacks/${randomBytes(32).toString('base64url')}/pix`),
      404,
      'not_found_error',
      'not_found',
    );
    expectError(
      await postCallback(body, '/v1/provider-callbacks/short/pix'),
      404,
      'not_found_error',
      'not_found',
    );
    expectError(await postCallback({ pix: 'E1' }), 400, 'invalid_request_error', 'invalid_request');
    expectError(
      await postCallback({ pix: [{ endToEndId: '../x' }] }),
      400,
      'invalid_request_error',
      'invalid_request',
    );
    expectError(
      await api(`${callbackPath}/pix`, { rawBody: '{"pix": [' }),
      400,
      'invalid_request_error',
      'invalid_json',
    );
    // No minimum in the standard's WebhookPixBody: a PSP testing the URL gets its 2xx.
    const empty = await postCallback({ pix: [] });
    expect(empty.status).toBe(200);
  });
});

describe('the callback body: the standard’s WebhookPixBody', { timeout: 90_000 }, () => {
  const schemas = loadApiPixSchemas();
  const forged = () => `E99999999${randomBytes(12).toString('hex').slice(0, 23)}`;

  it('every valid variant is taken: several Pix in one, devolucoes inside, optional fields absent or unknown ones added, no pix at all', async () => {
    const [full, minimal, extended] = [forged(), forged(), forged()];
    const several = {
      pix: [
        {
          endToEndId: full,
          txid: `t${randomBytes(16).toString('hex')}`,
          chave: psp.pixKey,
          valor: '110.00',
          horario: '2020-09-09T17:15:00.358-03:00',
          infoPagador: '0123456789',
          devolucoes: [
            {
              id: '123ABC',
              rtrId: `D99999999${'1'.repeat(23)}`,
              valor: '10.00',
              horario: { solicitacao: '2020-09-09T20:15:00.358Z', liquidacao: '2020-09-09T20:15:01Z' },
              status: 'DEVOLVIDO',
            },
          ],
        },
        { endToEndId: minimal, valor: '1.00', horario: '2020-09-09T20:15:00Z' },
        {
          endToEndId: extended,
          valor: '5.00',
          horario: '2020-09-09T20:15:00+05:30',
          componentesValor: { original: { valor: '5.00' } },
          campoDoFuturo: { qualquer: true },
        },
      ],
    };
    for (const body of [several, {}, { pix: [] }]) {
      expect({ body, valid: schemas.webhookPix(body) }).toEqual({ body, valid: true });
      expect((await postCallback(body)).status).toBe(200);
    }
    // Each Pix of the one callback was queued and read back at the PSP (which has none of them).
    for (const endToEndId of [full, minimal, extended]) await consumed(endToEndId, 'ignored');
  });

  it('an invalid one is 400 naming what is wrong, never a 500', async () => {
    const cases: [unknown, string][] = [
      [{ pix: [{ valor: '1.00', horario: '2020-09-09T20:15:00Z' }] }, 'pix.0.endToEndId'],
      [{ pix: [{ endToEndId: 12345 }] }, 'pix.0.endToEndId'],
      [{ pix: [{ endToEndId: forged() }, { endToEndId: 'E1/../x' }] }, 'pix.1.endToEndId'],
      [{ pix: { endToEndId: forged() } }, 'pix'],
      [{ pix: [forged()] }, 'pix.0'],
    ];
    for (const [body, param] of cases) {
      expect(schemas.webhookPix(body)).toBe(false);
      const reply = await postCallback(body);
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toBe(param);
      expect(reply.body.error.details).toEqual([expect.objectContaining({ param })]);
    }
  });
});

describe('payer lock in live mode (GET /pix?cpf=…&txid=…)', { timeout: 90_000 }, () => {
  const expectedPayer = '52998224725';
  const locked = () =>
    liveChargeAt(psp, liveKey, {
      amount: 2500,
      customer: { name: 'Maria Silva' },
      expected_payer_tax_id: expectedPayer,
    });

  it('the expected payer paid (the PSP lists the Pix for that CPF and txid): paid', async () => {
    const charge = await locked();
    await control(psp, 'POST', `/cob/${charge.txid}/pay`, {
      payerDocument: expectedPayer,
      payerName: 'Maria',
    });
    await eventually(async () => expect(await chargeStatus(charge.id)).toBe('paid'), SETTLED);
    expect((await storedCharge(accountId, rawId(charge.id), 'live'))?.payer).toEqual({
      document: expectedPayer,
    });
  });

  it('another payer paid (the PSP does not list the Pix for the expected CPF): refunded by devolution, not credited', async () => {
    const before = (await balance(liveKey)).available;
    const charge = await locked();
    const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, { payerDocument: '11144477735' });
    await eventually(async () => expect(await chargeStatus(charge.id)).toBe('refunded'), SETTLED);
    // The devolution was requested at the PSP for the whole Pix, addressed by its end-to-end id.
    await eventually(
      () =>
        expect(psp.bank.pix.get(pix.endToEndId)?.devolucoes).toEqual([
          expect.objectContaining({ valor: '25.00' }),
        ]),
      SETTLED,
    );
    expect(await storedCharge(accountId, rawId(charge.id), 'live')).toMatchObject({
      endToEndId: pix.endToEndId,
      payer: {},
    });
    expect((await balance(liveKey)).available).toBe(before);
  });

  it.each([
    ['refuses the payer filter (403)', false],
    ['ignores the payer filter without saying so', 'ignored'],
  ] as const)('a PSP that %s cannot tell who paid: held processing, not credited', async (_, supported) => {
    const before = (await balance(liveKey)).available;
    const charge = await locked();
    await control(psp, 'POST', '/payer-filter', { supported });
    try {
      // Another payer: a PSP that ignored the filter would list this Pix for the expected one.
      const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, {
        payerDocument: supported === 'ignored' ? '11144477735' : expectedPayer,
      });
      await eventually(async () => expect(await chargeStatus(charge.id)).toBe('processing'), SETTLED);
      expect(await storedCharge(accountId, rawId(charge.id), 'live')).toMatchObject({
        endToEndId: pix.endToEndId,
        payer: {},
      });
    } finally {
      await control(psp, 'POST', '/payer-filter', { supported: true });
    }
    expect((await balance(liveKey)).available).toBe(before);
  });
});

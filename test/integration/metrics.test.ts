/**
 * The EMF metrics of the real pipeline: the local runtime appends them to `metrics.jsonl` in its
 * data folder (METRICS_FILE), off the request log. Each dispatcher document names its delivery,
 * so this test reads only its own.
 */

import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { observability } from '../../shared/resources.ts';
import { merchant, newCharge, pay } from '../helpers/charges.ts';
import { documentsAbout, emfDocuments, metricSum, metricTotal } from '../helpers/emf.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import { requestLogRecord, runtimeLogLines } from '../helpers/runtime-log.ts';
import { receiverPool } from '../helpers/webhook-receiver.ts';

const { metrics } = observability;
const metricsFile = () => join(inject('dataDir'), 'metrics.jsonl');

describe('webhook delivery metrics', () => {
  it('a failed attempt writes an attempt failure, the 2xx after it a delivery and its latency', async () => {
    const m = await merchant();
    const { receiver, url } = await receiverPool().start();
    receiver.answer = (n) => (n <= 2 ? { status: 500, body: 'down' } : { status: 200 });
    const created = await api('/v1/webhooks/endpoints', {
      apikey: m.apikey,
      body: { url, events: ['charge.created'] },
    });
    expect(created.status).toBe(201);
    await newCharge(m.apikey);
    const delivery = await eventually(async () => {
      const list = await api('/v1/webhooks/deliveries?eventType=charge.created', { apikey: m.apikey });
      expect(list.body.data[0]?.status).toBe('DELIVERED');
      return list.body.data[0];
    });
    // The dispatcher writes a document after recording each attempt: wait for the third.
    const documents = await eventually(() => {
      const own = emfDocuments(metricsFile()).filter((d) => d.deliveryId === delivery.id);
      expect(own).toHaveLength(3);
      return own;
    });
    expect(documents.map((d) => d.status)).toEqual(['PENDING', 'PENDING', 'DELIVERED']);
    expect(documents.map((d) => metricSum(d, metrics.webhookAttempts))).toEqual([1, 1, 1]);
    expect(documents.map((d) => metricSum(d, metrics.webhookAttemptFailures))).toEqual([1, 1, 0]);
    expect(documents.map((d) => metricSum(d, metrics.webhookDelivered))).toEqual([0, 0, 1]);
    expect(metricSum(documents[2]!, metrics.webhookLatency)).toBeGreaterThan(0);
    for (const document of documents)
      expect(document).toMatchObject({ service: 'pix-service', mode: 'test' });
    // Off the request log: no EMF document among the runtime's log lines, read once the record of
    // a request made after the documents were written is in (the runtime logs in order).
    const later = await api('/v1/webhooks/deliveries?limit=1', { apikey: m.apikey });
    await requestLogRecord(String(later.headers.get('x-request-id')));
    expect(runtimeLogLines().some((line) => line.includes(delivery.id) && line.includes('"_aws"'))).toBe(
      false,
    );
    await receiver.stop();
  });
});

describe('outbox metrics', () => {
  // ChargesPaid is an invocation's count: its document names the accounts counted in it, so this
  // payment's count is told from other files' (that it counts exactly once is test/unit/metrics.test.ts).
  it('is wired: ChargesPaid counts the payment through the stream, in a document naming its account', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey);
    expect((await pay(m.apikey, charge.id)).status).toBe(200);
    await eventually(() =>
      expect(
        metricTotal(
          documentsAbout(emfDocuments(metricsFile()), 'accountIds', m.accountId),
          metrics.chargesPaid,
          'test',
        ),
      ).toBeGreaterThanOrEqual(1),
    );
  });
});

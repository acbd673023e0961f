/**
 * The metrics the outbox and the dispatcher write, read back as EMF documents from the file the
 * local runtime uses (`METRICS_FILE`). Events are built by the domain and stored by the store's
 * own item builder, as a stream batch would carry them.
 */

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { countEventMetrics } from '../../functions/outbox/metrics.ts';
import { publishDeliveryMetrics } from '../../functions/webhook-dispatcher/metrics.ts';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { type EventContext, refundEvents, transitionEvents } from '../../shared/domain/events.ts';
import { countMetric, flushMetrics } from '../../shared/metrics.ts';
import { observability } from '../../shared/resources.ts';
import { outboxItems } from '../../shared/store/events.ts';
import { type EmfDocument, emfDocuments, metricSum, metricTotal } from '../helpers/emf.ts';
import { streamRecord } from '../helpers/stream-records.ts';

const { metrics } = observability;
const scope = { accountId: 'acct_metrics', mode: 'test' as const };
let file: string;
let n = 0;
const ctx: EventContext = {
  at: '2026-11-21T10:00:00.000Z',
  recordedAt: '2026-11-21T10:00:00.000Z',
  apiVersion: '2026-11-01',
  newEventId: () => `evt_${++n}`,
};
const charge = {
  id: 'c1',
  status: 'PAID',
  amount: 1050,
  customer: {},
  metadata: {},
  baseUrl: 'https://pix.example',
  expiresAt: '2026-11-21T11:00:00.000Z',
} as unknown as ChargeRecord;

/** The stream records of a transaction's writes: its event items, and the charge item's change. */
const records = (events: Parameters<typeof outboxItems>[1]): DynamoDBRecord[] =>
  [
    ...outboxItems(scope, events).map((write) => streamRecord('INSERT', write.Put?.Item ?? {})),
    streamRecord(
      'MODIFY',
      { type: 'charge', status: 'PAID', accountId: scope.accountId, mode: 'test' },
      { type: 'charge', status: 'WAITING_PAYMENT', accountId: scope.accountId, mode: 'test' },
    ),
  ] as DynamoDBRecord[];

beforeEach(() => {
  file = join(mkdtempSync(join(tmpdir(), 'pix-metrics-')), 'metrics.jsonl');
  vi.stubEnv('METRICS_FILE', file);
  vi.stubEnv('TABLE_NAME', 'pix-service');
});

describe('outbox metrics', () => {
  it('a paid charge counts ChargesPaid once, in its mode, though it writes three events and a charge change', async () => {
    const events = transitionEvents('pay', charge, 'WAITING_PAYMENT', ctx);
    expect(events.map((e) => e.type)).toEqual(['charge.paid', 'payment.completed', 'payment.status_changed']);
    countEventMetrics(records(events));
    flushMetrics();
    const documents = emfDocuments(file);
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ service: 'pix-service', mode: 'test' });
    expect(documents[0]?._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'PixService',
      Dimensions: [expect.arrayContaining(['service', 'mode'])],
      Metrics: [{ Name: metrics.chargesPaid, Unit: 'Count' }],
    });
    expect(metricTotal(documents, metrics.chargesPaid, 'test')).toBe(1);
    expect(documents[0]).toMatchObject({ accountIds: scope.accountId });
  });

  it('counts the refunds by the status their event carries, and a batch of charges by type', async () => {
    const refund = (status: 'PENDING' | 'FAILED') =>
      refundEvents(charge, 'PAID', { id: 'r1', amount: 100, status }, ctx);
    const created = transitionEvents('create', { ...charge, status: 'WAITING_PAYMENT' }, null, ctx);
    countEventMetrics([
      ...records(refund('PENDING')),
      ...records(refund('FAILED')),
      ...records(created),
      ...records(created),
    ]);
    flushMetrics();
    const documents = emfDocuments(file);
    expect(metricTotal(documents, metrics.refundsPending, 'test')).toBe(1);
    expect(metricTotal(documents, metrics.refundsFailed, 'test')).toBe(1);
    expect(metricTotal(documents, metrics.refundsRefunded, 'test')).toBe(0);
    expect(metricTotal(documents, metrics.chargesCreated, 'test')).toBe(2);
  });

  it('writes nothing for a batch without metrics (no empty document, no warning)', async () => {
    countEventMetrics(records([]));
    flushMetrics();
    expect(emfDocuments(file)).toEqual([]);
  });
});

describe('counted metrics', () => {
  it("sum an invocation's counts into one document in the file, however many calls counted them", () => {
    const stdout = vi.spyOn(process.stdout, 'write');
    // Powertools alone writes a document of its own to stdout at 100 values of one metric.
    for (let call = 0; call < 150; call++) countMetric('live', { [metrics.acquirerCalls]: 1 });
    countMetric('live', { [metrics.acquirerErrors]: 1 });
    flushMetrics();
    const documents = emfDocuments(file);
    expect(documents).toHaveLength(1);
    expect(metricSum(documents[0] as EmfDocument, metrics.acquirerCalls)).toBe(150);
    expect(metricTotal(documents, metrics.acquirerErrors, 'live')).toBe(1);
    expect(stdout).not.toHaveBeenCalled();
    stdout.mockRestore();
  });

  it('name what they were about, each id once, in that invocation’s document only', () => {
    countMetric('test', { [metrics.chargesPaid]: 1 }, { accountIds: 'acct_b' });
    countMetric('test', { [metrics.chargesPaid]: 1 }, { accountIds: 'acct_a' });
    countMetric('test', { [metrics.chargesCreated]: 1 }, { accountIds: 'acct_b' });
    countMetric('live', { [metrics.acquirerErrors]: 1 }, { acquirers: 'psp.example:8443' });
    flushMetrics();
    countMetric('test', { [metrics.chargesPaid]: 1 });
    flushMetrics();
    const [live, test, next] = emfDocuments(file);
    expect(live).toMatchObject({ mode: 'live', acquirers: 'psp.example:8443' });
    expect(live).not.toHaveProperty('accountIds');
    expect(test).toMatchObject({ mode: 'test', accountIds: 'acct_a,acct_b' });
    expect(metricSum(test as EmfDocument, metrics.chargesPaid)).toBe(2);
    expect(next).toMatchObject({ mode: 'test' });
    expect(next).not.toHaveProperty('accountIds');
  });
});

describe('dispatcher metrics', () => {
  const report = {
    deliveryId: 'whd_1',
    eventType: 'charge.paid',
    mode: 'live' as const,
    createdAt: '2026-11-21T10:00:00.000Z',
  };

  it('a failed attempt is an attempt failure; the last one of a cycle a failed delivery; a 2xx its latency', () => {
    publishDeliveryMetrics({ ...report, status: 'PENDING', attempted: true });
    publishDeliveryMetrics({ ...report, status: 'FAILED', attempted: true });
    publishDeliveryMetrics(
      { ...report, status: 'DELIVERED', attempted: true },
      new Date('2026-11-21T10:00:01.500Z'),
    );
    const [retried, failed, delivered] = emfDocuments(file);
    expect(retried).toMatchObject({
      mode: 'live',
      deliveryId: 'whd_1',
      eventType: 'charge.paid',
      status: 'PENDING',
    });
    expect(metricSum(retried!, metrics.webhookAttemptFailures)).toBe(1);
    expect(metricSum(retried!, metrics.webhookFailed)).toBe(0);
    expect(metricSum(failed!, metrics.webhookAttemptFailures)).toBe(1);
    expect(metricSum(failed!, metrics.webhookFailed)).toBe(1);
    expect(metricSum(delivered!, metrics.webhookAttemptFailures)).toBe(0);
    expect(metricSum(delivered!, metrics.webhookDelivered)).toBe(1);
    expect(metricSum(delivered!, metrics.webhookLatency)).toBe(1500);
    for (const document of [retried, failed, delivered])
      expect(metricSum(document!, metrics.webhookAttempts)).toBe(1);
  });
});

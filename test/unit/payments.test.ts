import { describe, expect, it } from 'vitest';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { Unprocessable } from '../../shared/domain/errors.ts';
import { legacyEvent } from '../../shared/domain/events.ts';
import { chargeInputOf, parseCreatePayment } from '../../shared/domain/payment-input.ts';
import { serializePayment, serializePaymentCreated } from '../../shared/domain/payments.ts';
import { planExpiry } from '../../shared/domain/settlement.ts';
import { chargeRecord } from '../helpers/charge-record.ts';

const payment = (overrides: Record<string, unknown> = {}) =>
  parseCreatePayment({ amount: 100, paymentMethods: ['PIX'], idempotencyKey: 'key-12345678', ...overrides });

const charge = (overrides: Partial<ChargeRecord> = {}): ChargeRecord =>
  chargeRecord({
    amount: 100,
    expiresAt: '2999-01-01T00:00:00.000Z',
    createdAt: '2026-11-21T10:00:00.000Z',
    ...overrides,
  });

describe('payment input', () => {
  it('dedupes methods and maps a CPF to the normalised customer document', () => {
    const input = payment({ paymentMethods: ['PIX', 'PIX', 'BOLETO'], customerDocument: '529.982.247-25' });
    expect(input.paymentMethods).toEqual(['PIX', 'BOLETO']);
    expect(chargeInputOf(input).customer.document).toBe('52998224725');
  });

  it('keeps another tax id as sent', () => {
    expect(chargeInputOf(payment({ customerDocument: 'NIF 123456789' })).customer.document).toBe(
      'NIF 123456789',
    );
  });

  it('rejects a payment Pix cannot serve with 422, naming the field', () => {
    for (const [overrides, param] of [
      [{ paymentMethods: ['CRYPTO'] }, 'paymentMethods'],
      [{ currency: 'usdt' }, 'currency'],
    ] as const) {
      const error = (() => {
        try {
          chargeInputOf(payment(overrides));
        } catch (e) {
          return e;
        }
      })() as Unprocessable;
      expect(error).toBeInstanceOf(Unprocessable);
      expect([error.code, error.param]).toEqual(['unprocessable_entity', param]);
    }
  });
});

describe('payment serializers', () => {
  it('defaults a charge made through /v1/charges to PIX and nulls absent customer fields', () => {
    expect(serializePaymentCreated(charge(), Date.now())).toMatchObject({
      paymentMethods: ['PIX'],
      customerName: null,
      customerDocument: null,
      customerEmail: null,
    });
  });

  it('shows the effective status, and the failure in metadata', () => {
    const expired = charge({
      expiresAt: '2026-11-21T11:00:00.000Z',
      failure: {
        reason: 'expired unpaid',
        providerErrorCode: 'expired',
        ttlSeconds: 3600,
        at: '2026-11-21T11:00:01.000Z',
      },
    });
    const body = serializePayment(expired, Date.parse('2026-11-21T12:00:00.000Z'));
    expect(body.status).toBe('EXPIRED');
    expect(body.metadata).toEqual({ failure: expired.failure });
    expect(body).not.toHaveProperty('webhookUrl');
  });

  it('shows the expiry failure of a payment read as EXPIRED before the scheduler recorded it', () => {
    const due = charge({ expiresAt: '2026-11-21T11:00:00.000Z', metadata: { orderId: 'A-1' } });
    const before = serializePayment(due, Date.parse('2026-11-21T10:59:59.999Z'));
    expect([before.status, before.metadata]).toEqual(['WAITING_PAYMENT', { orderId: 'A-1' }]);
    const after = serializePayment(due, Date.parse('2026-11-21T11:00:30.000Z'));
    expect(after.status).toBe('EXPIRED');
    const recorded = planExpiry(due, new Date('2026-11-21T11:01:00.000Z'));
    // The same failure the scheduler then stores, dated when the window closed.
    expect(after.metadata).toEqual({ orderId: 'A-1', failure: recorded?.failure });
    expect(recorded?.failure).toEqual({
      reason: 'The Pix charge expired unpaid',
      providerErrorCode: 'expired',
      ttlSeconds: 3600,
      at: '2026-11-21T11:00:00.000Z',
    });
  });
});

describe('legacy events of a payment', () => {
  it('echo customerId and carry the webhookUrl override beside the payload', () => {
    const event = legacyEvent(
      'payment.created',
      charge({ customerId: 'user-9', webhookUrl: 'https://shop.example/hook' }),
      null,
      {
        at: '2026-11-21T10:00:00.000Z',
        recordedAt: '2026-11-21T10:00:00.000Z',
        apiVersion: '2026-11-01',
        newEventId: () => 'evt_1',
      },
    );
    expect(event.webhookUrl).toBe('https://shop.example/hook');
    expect(event.payload).toMatchObject({ data: { customerId: 'user-9' } });
    expect(JSON.stringify(event.payload)).not.toContain('shop.example');
  });
});

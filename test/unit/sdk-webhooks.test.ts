/**
 * `webhooks.verify` of the SDK against headers made by the service's own signer
 * (`shared/domain/webhook-signature.ts`) and by an independent HMAC: both schemes, secret
 * rotation, the timestamp tolerance and tampering.
 */

import { createHmac } from 'node:crypto';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type CanonicalEvent,
  type Charge,
  type ChargeEventType,
  type LegacyEvent,
  type LegacyEventType,
  type MedCase,
  type MedEventType,
  WebhookSignatureError,
  webhooks,
} from '../../sdk/src/index.ts';
import type {
  CanonicalEventType as ServiceChargeEventType,
  LegacyEventType as ServiceLegacyEventType,
} from '../../shared/domain/events.ts';
import type { MedEventType as ServiceMedEventType } from '../../shared/domain/med-cases.ts';
import { signatureHeader } from '../../shared/domain/webhook-signature.ts';

const OLD_SECRET = 'a'.repeat(64);
const NEW_SECRET = 'b'.repeat(64);
const NOW = 1_795_000_000;

const canonicalBody = JSON.stringify({
  id: 'evt_1',
  object: 'event',
  api_version: '2026-11-01',
  type: 'charge.paid',
  created_at: '2026-11-22T12:00:00.000Z',
  data: { object: { id: 'ch_1', object: 'charge', status: 'paid' } },
});
const legacyBody = JSON.stringify({
  event: 'payment.completed',
  data: { transactionId: 'tx', amount: 1050, status: 'PAID', previousStatus: 'WAITING_PAYMENT' },
});

const headersOf = (signature: string) => ({
  'x-acme-signature': signature,
  'x-acme-event-type': 'charge.paid',
});

/** Expects `verify` to throw a WebhookSignatureError with this reason. */
function expectRefused(run: () => unknown, reason: string) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    expect((error as WebhookSignatureError).reason).toBe(reason);
    return;
  }
  throw new Error(`verify accepted a delivery it should refuse (${reason})`);
}

describe('the t=…,v1=… scheme (canonical and MED events)', () => {
  const header = signatureHeader('charge.paid', canonicalBody, NEW_SECRET, NOW);

  it("accepts the service's signature and returns the parsed event", () => {
    const event = webhooks.verify(canonicalBody, headersOf(header), [NEW_SECRET], { nowSeconds: NOW });
    expect((event as CanonicalEvent).type).toBe('charge.paid');
  });

  it('types data.object by the event type (checked by tsc)', () => {
    const event = webhooks.verify(canonicalBody, headersOf(header), [NEW_SECRET], { nowSeconds: NOW });
    if (!('type' in event)) throw new Error('a canonical event');
    if (event.type === 'charge.paid') expectTypeOf(event.data.object).toEqualTypeOf<Charge>();
    if (event.type === 'med.resolved') expectTypeOf(event.data.object).toEqualTypeOf<MedCase>();
    expect(event.data.object).toMatchObject({ object: 'charge', status: 'paid' });
  });

  it('accepts either secret during a rotation, and refuses a secret that signed nothing', () => {
    const signedWithOld = signatureHeader('charge.paid', canonicalBody, OLD_SECRET, NOW);
    const both = [OLD_SECRET, NEW_SECRET];
    expect(webhooks.verify(canonicalBody, headersOf(signedWithOld), both, { nowSeconds: NOW })).toBeTruthy();
    expect(webhooks.verify(canonicalBody, headersOf(header), both, { nowSeconds: NOW })).toBeTruthy();
    expectRefused(
      () => webhooks.verify(canonicalBody, headersOf(header), [OLD_SECRET], { nowSeconds: NOW }),
      'no_matching_signature',
    );
  });

  it('accepts a timestamp up to the tolerance away in either direction, and refuses beyond it', () => {
    for (const skew of [-300, 300, -30, 30]) {
      const skewed = signatureHeader('charge.paid', canonicalBody, NEW_SECRET, NOW + skew);
      expect(webhooks.verify(canonicalBody, headersOf(skewed), NEW_SECRET, { nowSeconds: NOW })).toBeTruthy();
    }
    for (const skew of [-301, 301]) {
      const skewed = signatureHeader('charge.paid', canonicalBody, NEW_SECRET, NOW + skew);
      expectRefused(
        () => webhooks.verify(canonicalBody, headersOf(skewed), NEW_SECRET, { nowSeconds: NOW }),
        'timestamp_outside_tolerance',
      );
    }
    const old = signatureHeader('charge.paid', canonicalBody, NEW_SECRET, NOW - 3_600);
    expect(
      webhooks.verify(canonicalBody, headersOf(old), NEW_SECRET, {
        nowSeconds: NOW,
        toleranceSeconds: 7_200,
      }),
    ).toBeTruthy();
  });

  it('refuses a body changed by one byte, and a timestamp moved to fit the tolerance', () => {
    expectRefused(
      () =>
        webhooks.verify(canonicalBody.replace('paid', 'paiD'), headersOf(header), NEW_SECRET, {
          nowSeconds: NOW,
        }),
      'no_matching_signature',
    );
    const v1 = header.split('v1=')[1] as string;
    // Same string length, other bytes (a header's latin1 character): refused, not a RangeError.
    expectRefused(
      () =>
        webhooks.verify(canonicalBody, headersOf(`t=${NOW},v1=\u00e9${v1.slice(1)}`), NEW_SECRET, {
          nowSeconds: NOW,
        }),
      'no_matching_signature',
    );
    expectRefused(
      () =>
        webhooks.verify(canonicalBody, headersOf(`t=${NOW + 1},v1=${v1}`), NEW_SECRET, { nowSeconds: NOW }),
      'no_matching_signature',
    );
  });

  it('reads the header from fetch Headers, Node header records in any case, and a byte body', () => {
    const bytes = new TextEncoder().encode(canonicalBody);
    const fetchHeaders = new Headers({ 'X-Acme-Signature': header });
    expect(webhooks.verify(bytes, fetchHeaders, NEW_SECRET, { nowSeconds: NOW })).toBeTruthy();
    expect(
      webhooks.verify(canonicalBody, { 'X-Acme-Signature': [header] }, NEW_SECRET, { nowSeconds: NOW }),
    ).toBeTruthy();
  });
});

describe('the sha256= scheme (legacy payment.* events)', () => {
  it("accepts the service's signature, with either secret during a rotation", () => {
    const header = signatureHeader('payment.completed', legacyBody, OLD_SECRET, NOW);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    const event = webhooks.verify(legacyBody, headersOf(header), [NEW_SECRET, OLD_SECRET]);
    expect((event as LegacyEvent).event).toBe('payment.completed');
    expectTypeOf((event as LegacyEvent).data.netAmount).toEqualTypeOf<number | undefined>();
  });

  it('agrees with an independent HMAC of the raw body and refuses a tampered one', () => {
    const independent = `sha256=${createHmac('sha256', NEW_SECRET).update(legacyBody).digest('hex')}`;
    expect(webhooks.verify(legacyBody, headersOf(independent), NEW_SECRET)).toBeTruthy();
    expectRefused(
      () => webhooks.verify(`${legacyBody} `, headersOf(independent), NEW_SECRET),
      'no_matching_signature',
    );
  });
});

describe("the SDK's event names", () => {
  // The SDK stands alone, so it spells the names out; these keep them the ones the service emits (tsc).
  it("are the service's own", () => {
    expectTypeOf<ChargeEventType>().toEqualTypeOf<ServiceChargeEventType>();
    expectTypeOf<MedEventType>().toEqualTypeOf<ServiceMedEventType>();
    expectTypeOf<ServiceLegacyEventType>().toExtend<LegacyEventType>();
  });
});

describe('the scheme of each family', () => {
  it('refuses a legacy event signed t=,v1= and a canonical one signed sha256=, though each HMAC matches', () => {
    const v1OverLegacy = `t=${NOW},v1=${createHmac('sha256', NEW_SECRET).update(`${NOW}.${legacyBody}`).digest('hex')}`;
    expectRefused(
      () => webhooks.verify(legacyBody, headersOf(v1OverLegacy), NEW_SECRET, { nowSeconds: NOW }),
      'no_matching_signature',
    );
    const sha256OverCanonical = `sha256=${createHmac('sha256', NEW_SECRET).update(canonicalBody).digest('hex')}`;
    expectRefused(
      () => webhooks.verify(canonicalBody, headersOf(sha256OverCanonical), NEW_SECRET),
      'no_matching_signature',
    );
  });
});

describe('malformed deliveries', () => {
  it.each([
    [{}, 'missing_signature'],
    [headersOf('v1=abc'), 'malformed_signature'],
    [headersOf(`t=${NOW}`), 'malformed_signature'],
    [headersOf('t=yesterday,v1=abc'), 'malformed_signature'],
  ])('refuses %j', (headers, reason) => {
    expectRefused(() => webhooks.verify(canonicalBody, headers, NEW_SECRET, { nowSeconds: NOW }), reason);
  });

  it.each(['null', '"text"', '123', '[]'])('refuses a signed body %s that is JSON but no event', (body) => {
    const legacy = `sha256=${createHmac('sha256', NEW_SECRET).update(body).digest('hex')}`;
    expectRefused(() => webhooks.verify(body, headersOf(legacy), NEW_SECRET), 'invalid_json');
    const canonical = `t=${NOW},v1=${createHmac('sha256', NEW_SECRET).update(`${NOW}.${body}`).digest('hex')}`;
    expectRefused(
      () => webhooks.verify(body, headersOf(canonical), NEW_SECRET, { nowSeconds: NOW }),
      'invalid_json',
    );
  });

  it('needs at least one secret', () => {
    expect(() => webhooks.verify(canonicalBody, {}, [])).toThrow(TypeError);
  });
});

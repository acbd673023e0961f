import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { callbackEndToEndIds, providerCallbackSchema } from '../../shared/domain/provider-callback.ts';
import { devolutionIdOf, refundIdOfDevolution } from '../../shared/domain/refunds.ts';

const e2e = (n: number) => `E12345678202611221200${String(n).padStart(11, '0')}`;

describe('the API Pix callback body', () => {
  it('takes the distinct end-to-end ids of {"pix": [...]}, whatever else each Pix carries', () => {
    const body = v.parse(providerCallbackSchema, {
      pix: [{ endToEndId: e2e(1), valor: '1.00', txid: 'x' }, { endToEndId: e2e(2) }, { endToEndId: e2e(1) }],
    });
    expect(callbackEndToEndIds(body)).toEqual([e2e(1), e2e(2)]);
  });

  it('takes an empty list (a PSP testing the URL): nothing to queue', () => {
    expect(callbackEndToEndIds(v.parse(providerCallbackSchema, { pix: [] }))).toEqual([]);
  });

  it.each([[{}], [{ evento: 'teste_webhook' }]])(
    'takes %j: WebhookPixBody does not require pix, nothing to queue',
    (body) => {
      expect(callbackEndToEndIds(v.parse(providerCallbackSchema, body))).toEqual([]);
    },
  );

  it.each([
    [{ pix: null }],
    [{ pix: 'E1' }],
    [{ pix: [{}] }],
    [{ pix: [{ endToEndId: '../../x' }] }],
    [{ pix: [{ endToEndId: 'E'.repeat(36) }] }],
    [{ pix: Array.from({ length: 1001 }, (_, n) => ({ endToEndId: e2e(n) })) }],
  ])('refuses %j', (body) => {
    expect(v.safeParse(providerCallbackSchema, body).success).toBe(false);
  });
});

describe('devolution ids', () => {
  it('give back the refund they were made from, and nothing for an id not of ours', () => {
    const refundId = 're_0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    expect(refundIdOfDevolution(devolutionIdOf(refundId))).toBe(refundId);
    expect(refundIdOfDevolution('D12345678abc')).toBeUndefined();
  });
});

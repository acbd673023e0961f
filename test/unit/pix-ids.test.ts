import { describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../shared/domain/charge-input.ts';
import {
  deriveTxid,
  END_TO_END_ID_PATTERN,
  parseChargeId,
  publicChargeId,
  TXID_PATTERN,
} from '../../shared/domain/pix-ids.ts';
import { newChargeId, newEndToEndId } from '../../shared/ids.ts';

describe('deriveTxid', () => {
  const source = {
    accountId: 'acc_1',
    mode: 'live',
    routeId: 'createCharge',
    idempotencyKey: 'key-00000001',
    keyWindow: 20_000,
    requestHash: requestFingerprint('createCharge', { amount: 1000, payment_method: 'pix' }),
  };

  it('is 32 lower-case hex characters and satisfies the API Pix txid rule', () => {
    const txid = deriveTxid({ ...source, idempotencyKey: 'order-123-attempt' });
    expect(txid).toMatch(/^[0-9a-f]{32}$/);
    expect(txid).toMatch(TXID_PATTERN);
    expect(txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
  });

  it('is deterministic for the same inputs', () => {
    expect(deriveTxid({ ...source })).toBe(deriveTxid(source));
  });

  it('changes with the key, the mode, the account, the route and the retention period', () => {
    const base = deriveTxid(source);
    expect(deriveTxid({ ...source, idempotencyKey: 'key-00000002' })).not.toBe(base);
    expect(deriveTxid({ ...source, mode: 'test' })).not.toBe(base);
    expect(deriveTxid({ ...source, accountId: 'acc_2' })).not.toBe(base);
    // One key on two create routes makes two charges: never one cob for both.
    expect(deriveTxid({ ...source, routeId: 'createPixCharge' })).not.toBe(base);
    // A key used again once its idempotency record is gone makes a new charge, not the old cob revised.
    expect(deriveTxid({ ...source, keyWindow: source.keyWindow + 1 })).not.toBe(base);
  });

  it('changes with the body, not with its key order: another body under the same key never revises this cob', () => {
    const base = deriveTxid(source);
    const other = requestFingerprint('createCharge', { amount: 2000, payment_method: 'pix' });
    expect(deriveTxid({ ...source, requestHash: other })).not.toBe(base);
    const reordered = requestFingerprint('createCharge', { payment_method: 'pix', amount: 1000 });
    expect(deriveTxid({ ...source, requestHash: reordered })).toBe(base);
  });

  it('does not collide when separators move between the parts', () => {
    expect(deriveTxid({ ...source, accountId: 'a:live', mode: 'x', idempotencyKey: 'k' })).not.toBe(
      deriveTxid({ ...source, accountId: 'a', mode: 'live:x', idempotencyKey: 'k' }),
    );
    expect(deriveTxid({ ...source, accountId: 'a', mode: 'live', idempotencyKey: 'x:k' })).not.toBe(
      deriveTxid({ ...source, accountId: 'a:live', mode: 'x', idempotencyKey: 'k' }),
    );
  });
});

describe('newEndToEndId', () => {
  const at = new Date('2026-03-07T09:05:59.999Z');

  it('follows the BCB layout E + ISPB + yyyyMMddHHmm (UTC) + 11 alphanumerics', () => {
    const id = newEndToEndId('12345678', at);
    expect(id).toHaveLength(32);
    expect(id).toMatch(END_TO_END_ID_PATTERN);
    expect(id.slice(0, 21)).toBe('E12345678202603070905');
  });

  it('uses UTC regardless of the date object origin', () => {
    const id = newEndToEndId('00000000', new Date(Date.UTC(2025, 11, 31, 23, 59)));
    expect(id.slice(9, 21)).toBe('202512312359');
  });

  it('is random in the tail', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newEndToEndId('12345678', at)));
    expect(ids.size).toBe(200);
  });

  it('rejects a malformed ISPB or an invalid date', () => {
    expect(() => newEndToEndId('1234567', at)).toThrow(/ISPB/);
    expect(() => newEndToEndId('1234567A', at)).toThrow(/ISPB/);
    expect(() => newEndToEndId('12345678', new Date('nope'))).toThrow(RangeError);
  });

  it('exposes a pattern that rejects near misses', () => {
    expect(END_TO_END_ID_PATTERN.test('E12345678202603070905abcdefghijk')).toBe(true);
    expect(END_TO_END_ID_PATTERN.test('D12345678202603070905abcdefghijk')).toBe(false);
    expect(END_TO_END_ID_PATTERN.test('E12345678202603070905abcdefghij')).toBe(false);
    expect(END_TO_END_ID_PATTERN.test('E12345678202603070905abcdefghij-')).toBe(false);
  });
});

describe('charge ids', () => {
  it('creates lower-case UUIDv7 raw ids, unique per call', () => {
    const ids = Array.from({ length: 100 }, () => newChargeId(Date.now()));
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(100);
  });

  it('round-trips through the public form', () => {
    const raw = newChargeId(Date.now());
    const pub = publicChargeId(raw);
    expect(pub).toBe(`ch_${raw}`);
    expect(parseChargeId(pub)).toBe(raw);
    expect(parseChargeId(raw)).toBe(raw);
  });

  it('rejects anything that is not exactly a lower-case UUIDv7', () => {
    for (const bad of [
      '',
      'ch_',
      'ch_019a4b2c-1d2e-7f00-8a1b-2c3d4e5f607',
      'ch_019a4b2c-1d2e-7f00-8a1b-2c3d4e5f60718',
      'ch_019A4B2C-1D2E-7F00-8A1B-2C3D4E5F6071',
      'ch_ch_019a4b2c-1d2e-7f00-8a1b-2c3d4e5f6071',
      'CH_019a4b2c-1d2e-7f00-8a1b-2c3d4e5f6071',
      'py_019a4b2c-1d2e-7f00-8a1b-2c3d4e5f6071',
      '019a4b2c-1d2e-4f00-8a1b-2c3d4e5f6071', // a UUIDv4
      '019a4b2c1d2e7f008a1b2c3d4e5f6071', // no dashes
      ' 019a4b2c-1d2e-7f00-8a1b-2c3d4e5f6071',
      '0123456789abcdef01234567', // the old format
    ]) {
      expect(parseChargeId(bad)).toBeUndefined();
    }
  });
});

describe('charge id ordering', () => {
  it('sorts raw ids by creation time, and chargeIdFloor bounds them', async () => {
    const { chargeIdFloor } = await import('../../shared/domain/pix-ids.ts');
    const next = newChargeId;
    const early = next(1_700_000_000_000);
    const late = next(1_700_000_000_001);
    expect(early < late).toBe(true);
    expect(chargeIdFloor(1_700_000_000_000) <= early).toBe(true);
    expect(chargeIdFloor(1_700_000_000_001) > early).toBe(true);
  });
});

describe('location tokens', () => {
  it('round-trip a raw id in 22 characters and refuse anything else', async () => {
    const { locationToken, parseLocationToken } = await import('../../shared/domain/pix-ids.ts');
    const raw = newChargeId(Date.now());
    expect(locationToken(raw)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(parseLocationToken(locationToken(raw))).toBe(raw);
    expect(parseLocationToken(raw)).toBeUndefined();
    expect(parseLocationToken('A'.repeat(22))).toBeUndefined(); // 16 bytes, not a UUIDv7
  });
});

import type { ChargeRecord } from '../../shared/domain/charges.ts';

/**
 * A stored charge for unit tests of pure rules: a test charge awaiting payment, created at
 * 11:50 on 2026-11-21 and expiring at 12:50 (UTC). Override what the rule under test reads.
 */
export const chargeRecord = (overrides: Partial<ChargeRecord> = {}): ChargeRecord => ({
  id: '019a1b2c-3d4e-7f50-8a9b-0c1d2e3f4a5b',
  accountId: 'acct_x',
  mode: 'test',
  amount: 2000,
  currency: 'BRL',
  status: 'WAITING_PAYMENT',
  paymentMethod: 'pix',
  customer: {},
  metadata: {},
  idempotencyKey: 'key-12345',
  baseUrl: 'https://api.example.com',
  provider: 'sandbox',
  txid: 'a'.repeat(32),
  brCode: '000201',
  expiresAt: '2026-11-21T12:50:00.000Z',
  createdAt: '2026-11-21T11:50:00.000Z',
  updatedAt: '2026-11-21T11:50:00.000Z',
  ...overrides,
});

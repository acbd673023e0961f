/**
 * Partition-key builders shared by several entities. Merchant data is partitioned by account
 * AND mode: a test key never sees live data and vice versa (as with Stripe's test mode).
 */

import type { KeyMode } from '../auth/api-key-crypto.ts';

export const accountPk = (accountId: string): string => `ACCOUNT#${accountId}`;

export interface MerchantScope {
  accountId: string;
  mode: KeyMode;
}

export const scopePk = ({ accountId, mode }: MerchantScope): string => `ACCOUNT#${accountId}#${mode}`;

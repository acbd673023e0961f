/**
 * Per-account settings with the defaults README's API decisions state: charge expiry window, fee plan,
 * settlement hold, velocity limits and the profile printed in BR Codes.
 */

import * as v from 'valibot';
import type { AcquirerSettings } from './acquirer.ts';

interface FeePlan {
  /** The acquirer's fee: basis points of the amount plus a fixed part, in centavos. */
  providerFeeBps: number;
  providerFeeFixed: number;
  /** The platform's fee, basis points of the amount. */
  platformFeeBps: number;
  /** The Pix-out fee of a cashout refund, in centavos (debited only with `passFeeToTenant`). */
  cashoutFee: number;
}

export interface VelocityLimits {
  /** Live (`pending`) charges per customer document within the window. */
  customerMaxCharges: number;
  customerWindowSeconds: number;
  /** Live (`pending`) charges per account and mode. */
  accountMaxPending: number;
}

export interface AccountSettings {
  merchantName: string;
  /** The merchant's CNPJ (or CPF), normalised; printed on payment receipts when set. */
  merchantDocument?: string;
  merchantCity: string;
  /** Where MED notices are e-mailed; none are sent without it. */
  contactEmail?: string;
  mcc: string;
  defaultExpiresIn: number;
  settlementHoldDays: number;
  feePlan: FeePlan;
  velocity: VelocityLimits;
  /**
   * How many items the wallet balance and the live-charge counter are split in (1…64): every
   * settlement writes one shard of each, so a merchant's settlement rate is not bounded by one
   * item (docs/scale.md). Reads sum every shard in one query, so changing it loses nothing.
   */
  walletShards: number;
}

export const DEFAULT_SETTINGS: Omit<AccountSettings, 'merchantName'> = {
  merchantCity: 'SAO PAULO',
  mcc: '0000',
  defaultExpiresIn: 3600,
  settlementHoldDays: 0,
  feePlan: { providerFeeBps: 80, providerFeeFixed: 0, platformFeeBps: 120, cashoutFee: 50 },
  velocity: { customerMaxCharges: 5, customerWindowSeconds: 600, accountMaxPending: 1000 },
  // Four shards cost a small merchant nothing (a balance read is still one query of a few
  // items) and give each about a quarter of the load; a large merchant is raised with
  // `npm run admin -- set-wallet-shards` (docs/scale.md sizes it).
  walletShards: 4,
};

/** Basis points of an amount in centavos, rounded half up (fees never go negative). */
const bps = (amount: number, basisPoints: number) => Math.floor((amount * basisPoints + 5_000) / 10_000);

/** Fees for a settled amount; `netAmount` = amount − providerFee − platformFee, never below 0. */
export function computeFees(
  amount: number,
  plan: Pick<FeePlan, 'providerFeeBps' | 'providerFeeFixed' | 'platformFeeBps'>,
) {
  const providerFee = Math.min(amount, bps(amount, plan.providerFeeBps) + plan.providerFeeFixed);
  const platformFee = Math.min(amount - providerFee, bps(amount, plan.platformFeeBps));
  return { providerFee, platformFee, netAmount: amount - providerFee - platformFee };
}

/** The tenant: merchant profile and per-account settings. */
export interface Account {
  id: string;
  name: string;
  createdAt: string;
  /** Per-key requests per minute; the service default applies when absent. */
  rateLimitPerMinute?: number;
  settings: AccountSettings;
  /** Sandbox only: the simulated acquirer answers as unavailable (503 on create). */
  sandboxAcquirerDown?: boolean;
  /** Sandbox only: the simulated acquirer offers no Pix-out (cashout refunds: `REFUND_NOT_SUPPORTED`). */
  sandboxPayoutsUnsupported?: boolean;
  /** Live mode's acquirer (`npm run admin -- set-provider`); its credentials live in the acquirer secret. */
  acquirer?: AcquirerSettings;
}

export type AccountOverrides = Partial<Omit<AccountSettings, 'feePlan' | 'velocity'>> & {
  feePlan?: Partial<AccountSettings['feePlan']>;
  velocity?: Partial<AccountSettings['velocity']>;
};

/** An account's settings: what it stored over the defaults, so settings added later apply to old accounts too. */
export function settingsOf(merchantName: string, overrides: AccountOverrides = {}): AccountSettings {
  return {
    ...DEFAULT_SETTINGS,
    merchantName,
    ...overrides,
    feePlan: { ...DEFAULT_SETTINGS.feePlan, ...overrides.feePlan },
    velocity: { ...DEFAULT_SETTINGS.velocity, ...overrides.velocity },
  };
}

/** The account's contact e-mail (MED notices go there): an address SES accepts, at most 254 characters. */
export const contactEmailSchema = v.pipe(v.string(), v.trim(), v.maxLength(254), v.email());

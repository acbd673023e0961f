/**
 * Who owns a piece of merchant data: an account, in one mode. Test and live data never mix (a
 * test key never sees live data, as with Stripe's test mode).
 */

export type Mode = 'live' | 'test';

export interface MerchantScope {
  accountId: string;
  mode: Mode;
}

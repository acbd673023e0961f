import type { RequestOptions } from '../http.ts';
import type { CurrencyBalance, WalletBalance, WalletListItem } from '../types.ts';
import { Resource } from './resource.ts';

/** `/v1/wallets`: read-only balances of the key's account and mode. */
export class Wallets extends Resource {
  /** Every currency, with the primary (BRL) at the top level. */
  balance(params?: Record<string, never>, options?: RequestOptions): Promise<WalletBalance>;
  /** One currency, flat. */
  balance(params: { currency: string }, options?: RequestOptions): Promise<CurrencyBalance>;
  balance(
    params: { currency?: string } = {},
    options?: RequestOptions,
  ): Promise<WalletBalance | CurrencyBalance> {
    return this.http.request(
      { method: 'GET', path: '/v1/wallets/balance', auth: 'apikey', query: { ...params } },
      options,
    );
  }

  list(options?: RequestOptions): Promise<WalletListItem[]> {
    return this.http.request({ method: 'GET', path: '/v1/wallets', auth: 'apikey' }, options);
  }
}

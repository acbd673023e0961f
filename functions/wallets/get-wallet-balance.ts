import * as v from 'valibot';
import { parseInput } from '#shared/domain/validation.ts';
import { emptyWallet, serializeBalance, serializeCurrencyBalance } from '#shared/domain/wallets.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { listWalletBalances } from '#shared/store/wallets.ts';

const BalanceQuery = v.strictObject({
  currency: v.optional(
    v.pipe(v.string(), v.toUpperCase(), v.regex(/^[A-Z]{3}$/, 'Must be an ISO 4217 currency code')),
  ),
});

/** GET /v1/wallets/balance[?currency=XXX] */
export const getWalletBalance: RouteHandler<KeyPrincipal> = async ({ principal, query }) => {
  const { currency } = parseInput(BalanceQuery, query, 'query');
  const wallets = await listWalletBalances(principal);
  if (currency === undefined) return { status: 200, body: serializeBalance(wallets) };
  const wallet = wallets.find((w) => w.currency === currency) ?? emptyWallet(currency);
  return { status: 200, body: serializeCurrencyBalance(wallet) };
};

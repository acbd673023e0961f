import { parseInput } from '#shared/domain/validation.ts';
import {
  BalanceQuery,
  emptyWallet,
  serializeBalance,
  serializeCurrencyBalance,
} from '#shared/domain/wallets.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { readWalletBalances } from '#shared/services/read-wallet-balances.ts';

/** GET /v1/wallets/balance[?currency=XXX] */
export const getWalletBalance: RouteHandler<KeyPrincipal> = async ({ principal, query }) => {
  const { currency } = parseInput(BalanceQuery, query, 'query');
  const wallets = await readWalletBalances(principal);
  if (currency === undefined) return { status: 200, body: serializeBalance(wallets) };
  const wallet = wallets.find((w) => w.currency === currency) ?? emptyWallet(currency);
  return { status: 200, body: serializeCurrencyBalance(wallet) };
};

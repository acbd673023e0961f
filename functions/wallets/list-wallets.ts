import { serializeWalletListItem, withPrimary } from '#shared/domain/wallets.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { readWalletBalances } from '#shared/services/read-wallet-balances.ts';

/** GET /v1/wallets: one operational wallet per currency, the primary (BRL) always listed. */
export const listWallets: RouteHandler<KeyPrincipal> = async ({ principal }) => ({
  status: 200,
  body: withPrimary(await readWalletBalances(principal)).map(serializeWalletListItem),
});

import { createApiHandler } from '#shared/http/api-handler.ts';
import { getWalletBalance } from './get-wallet-balance.ts';
import { listWallets } from './list-wallets.ts';

export const handler = createApiHandler('wallets', { getWalletBalance, listWallets });

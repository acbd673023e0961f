import { SandboxAcquirerBody } from '#shared/domain/sandbox-input.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getAccount, setSandboxAcquirer as store } from '#shared/store/accounts.ts';
import { requireTestMode } from './sandbox-only.ts';

/**
 * POST /v1/sandbox/acquirer: take the simulated acquirer down (creates answer 503) or up, and
 * make it offer Pix-out or not (cashout refunds answer `REFUND_NOT_SUPPORTED` without).
 */
export const setSandboxAcquirer: RouteHandler<KeyPrincipal> = async ({ principal, body }) => {
  requireTestMode(principal);
  const input = parseInput(SandboxAcquirerBody, body, 'body');
  await store(principal.accountId, {
    ...(input.status !== undefined && { down: input.status === 'down' }),
    ...(input.payouts !== undefined && { payoutsUnsupported: input.payouts === 'unsupported' }),
  });
  const account = await getAccount(principal.accountId);
  return {
    status: 200,
    body: {
      object: 'sandbox_acquirer',
      status: account?.sandboxAcquirerDown ? 'down' : 'up',
      payouts: account?.sandboxPayoutsUnsupported ? 'unsupported' : 'supported',
    },
  };
};

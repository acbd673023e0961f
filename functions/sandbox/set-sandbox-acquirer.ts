import { SandboxAcquirerBody } from '#shared/domain/sandbox-input.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { setSandboxAcquirer as setAcquirer } from '#shared/services/set-sandbox-acquirer.ts';
import { requireTestMode } from './sandbox-only.ts';

/** POST /v1/sandbox/acquirer: the simulated acquirer up or down, with Pix-out or without. */
export const setSandboxAcquirer: RouteHandler<KeyPrincipal> = async ({ principal, body }) => {
  requireTestMode(principal);
  const input = parseInput(SandboxAcquirerBody, body, 'body');
  const acquirer = await setAcquirer(principal.accountId, {
    ...(input.status !== undefined && { down: input.status === 'down' }),
    ...(input.payouts !== undefined && { payoutsUnsupported: input.payouts === 'unsupported' }),
  });
  return {
    status: 200,
    body: {
      object: 'sandbox_acquirer',
      status: acquirer.down ? 'down' : 'up',
      payouts: acquirer.payoutsUnsupported ? 'unsupported' : 'supported',
    },
  };
};

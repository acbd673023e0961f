import * as v from 'valibot';
import { parseInput } from '#shared/domain/validation.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { setSandboxAcquirerDown } from '#shared/store/accounts.ts';
import { requireTestMode } from './sandbox-only.ts';

const Body = v.strictObject({ status: v.picklist(['up', 'down'], 'Must be up or down') });

/** POST /v1/sandbox/acquirer: take the simulated acquirer down (creates answer 503) or up. */
export const setSandboxAcquirer: RouteHandler<KeyPrincipal> = async ({ principal, body }) => {
  requireTestMode(principal);
  const { status } = parseInput(Body, body, 'body');
  await setSandboxAcquirerDown(principal.accountId, status === 'down');
  return { status: 200, body: { object: 'sandbox_acquirer', status } };
};

import { serializeCharge } from '#shared/domain/charges.ts';
import { InvalidInput, NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { expireCharge } from '#shared/services/expire-charge.ts';
import { getCharge } from '#shared/store/charges.ts';
import { requireTestMode } from './sandbox-only.ts';

/** POST /v1/sandbox/charges/{id}/expire: the charge's window closes now. */
export const simulateExpiry: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  requireTestMode(principal);
  const rawId = parseChargeId(pathParameters.id ?? '');
  if (rawId === undefined || !(await getCharge(principal, rawId))) throw new NotFound('No such charge.');
  const expired = await expireCharge(principal, rawId, new Date(), true);
  if (!expired) throw new InvalidInput('Only a pending charge can expire.', { param: 'id' });
  return { status: 200, body: serializeCharge(expired, Date.now()) };
};

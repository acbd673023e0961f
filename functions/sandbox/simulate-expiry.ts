import { serializeCharge } from '#shared/domain/charges.ts';
import { NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { expireSandboxCharge } from '#shared/services/expire-sandbox-charge.ts';
import { requireTestMode } from './sandbox-only.ts';

/** POST /v1/sandbox/charges/{id}/expire: the charge's window closes now. */
export const simulateExpiry: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  requireTestMode(principal);
  const chargeId = parseChargeId(pathParameters.id ?? '');
  if (chargeId === undefined) throw new NotFound('No such charge.');
  return { status: 200, body: serializeCharge(await expireSandboxCharge(principal, chargeId), Date.now()) };
};

import { serializeCharge } from '#shared/domain/charges.ts';
import { NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getCharge as read } from '#shared/store/charges.ts';

/** GET /v1/charges/{id}: `ch_<id>` or the raw id; another account's (or mode's) charge is 404. */
export const getCharge: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const rawId = parseChargeId(pathParameters.id ?? '');
  const charge = rawId === undefined ? undefined : await read(principal, rawId);
  if (!charge) throw new NotFound('No such charge.');
  return { status: 200, body: serializeCharge(charge, Date.now()) };
};

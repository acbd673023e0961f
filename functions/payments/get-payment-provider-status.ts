import { NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getProviderStatus } from '#shared/services/get-provider-status.ts';

/**
 * GET /v1/payments/{id}/provider-status: the acquirer's live view of the payment (Part 2), never
 * cached on the way back either.
 */
export const getPaymentProviderStatus: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const rawId = parseChargeId(pathParameters.id ?? '');
  if (rawId === undefined) throw new NotFound('No such payment.');
  return {
    status: 200,
    body: await getProviderStatus(principal, rawId, new Date()),
    headers: { 'Cache-Control': 'no-store' },
  };
};

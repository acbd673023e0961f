import { idempotencyKeyFrom, parseCreateCharge } from '#shared/domain/charge-input.ts';
import { idempotentResponse } from '#shared/http/idempotent-response.ts';
import type { ApiRequest, KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { createCharge as create } from '#shared/services/create-charge.ts';

const handle = (routeId: 'createCharge' | 'createPixCharge') => async (request: ApiRequest<KeyPrincipal>) => {
  const idempotencyKey = idempotencyKeyFrom(request.headers);
  const input = parseCreateCharge(request.body, routeId);
  return idempotentResponse(
    await create({
      scope: request.principal,
      routeId,
      idempotencyKey,
      rawBody: request.body,
      input,
      baseUrl: request.baseUrl,
      headers: request.headers,
    }),
  );
};

/** POST /v1/charges (`payment_method: "pix"` required). */
export const createCharge: RouteHandler<KeyPrincipal> = handle('createCharge');

/** POST /v1/pix/charges (`payment_method` fixed to pix). */
export const createPixCharge: RouteHandler<KeyPrincipal> = handle('createPixCharge');

import { signPixPayload } from '#shared/auth/pix-signing.ts';
import { NotFound } from '#shared/domain/errors.ts';
import { pixPayload } from '#shared/domain/pix-payload.ts';
import type { RouteHandler } from '#shared/http/types.ts';
import { loadPublicCharge, noStore } from './load-charge.ts';

/**
 * GET /pix/{id}: the BR Code's location. Like API Pix's `GET /{pixUrlAccessToken}`, it serves
 * the charge payload (txid, amount, expiry, status) as a JWS the payer's bank verifies with the
 * keys at `/.well-known/jwks.json`.
 */
export const getPixPayload: RouteHandler<undefined> = async ({ pathParameters, baseUrl }) => {
  const charge = await loadPublicCharge(pathParameters.id);
  if (!charge.txid) throw new NotFound('This charge has no Pix location.'); // refused: no BR Code, no cob
  const jws = await signPixPayload(pixPayload(charge, new Date()), `${baseUrl}/.well-known/jwks.json`);
  return { status: 200, raw: { contentType: 'application/jose', body: jws }, headers: noStore };
};

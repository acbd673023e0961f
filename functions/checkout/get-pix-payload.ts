import { signPixPayload } from '#shared/auth/pix-signing.ts';
import { NotFound } from '#shared/domain/errors.ts';
import { parseLocationToken } from '#shared/domain/pix-ids.ts';
import { pixPayload } from '#shared/domain/pix-payload.ts';
import type { RouteHandler } from '#shared/http/types.ts';
import { loadPublicCharge, noStore } from './load-charge.ts';

/**
 * GET /pix/{token}: the BR Code's location (the charge's location token). Like API Pix's `GET /{pixUrlAccessToken}`, it serves
 * the charge payload (txid, amount, expiry, status) as a JWS the payer's bank verifies with the
 * keys at `/.well-known/jwks.json`.
 */
export const getPixPayload: RouteHandler<undefined> = async ({ pathParameters, baseUrl }) => {
  const charge = await loadPublicCharge(pathParameters.id, parseLocationToken);
  if (!charge.txid) throw new NotFound('This charge has no Pix location.'); // refused: no BR Code, no cob
  const jws = await signPixPayload(pixPayload(charge, new Date()), `${baseUrl}/.well-known/jwks.json`);
  return { status: 200, raw: { contentType: 'application/jose', body: jws }, headers: noStore };
};

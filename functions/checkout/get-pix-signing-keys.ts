import { pixSigningJwks } from '#shared/auth/pix-signing.ts';
import type { RouteHandler } from '#shared/http/types.ts';

/** GET /.well-known/jwks.json: the public key of the Pix location JWS. */
export const getPixSigningKeys: RouteHandler<undefined> = async () => ({
  status: 200,
  body: await pixSigningJwks(),
  headers: { 'Cache-Control': 'public, max-age=300' },
});

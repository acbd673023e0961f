import { isApiKeyId, requireKeyManager } from '#shared/domain/api-keys.ts';
import { NotFound } from '#shared/domain/errors.ts';
import type { RouteHandler, UserPrincipal } from '#shared/http/types.ts';
import { revokeApiKey as revoke } from '#shared/services/revoke-api-key.ts';

/** DELETE /v1/api-keys/{id}: permanent. */
export const revokeApiKey: RouteHandler<UserPrincipal> = async ({ principal, pathParameters }) => {
  requireKeyManager(principal.role);
  const keyId = pathParameters.id;
  if (!isApiKeyId(keyId)) throw new NotFound('No such API key.');
  const revoked = await revoke({
    accountId: principal.accountId,
    keyId,
    actorUserId: principal.userId,
  });
  if (!revoked) throw new NotFound('No such API key.');
  return { status: 200, body: { revoked: true } };
};

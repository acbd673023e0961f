import {
  isApiKeyId,
  RotateApiKeyBody,
  requireKeyManager,
  serializeIssuedKey,
} from '#shared/domain/api-keys.ts';
import { NotFound } from '#shared/domain/errors.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { RouteHandler, UserPrincipal } from '#shared/http/types.ts';
import { rotateApiKey as rotate } from '#shared/services/rotate-api-key.ts';

/** POST /v1/api-keys/{id}/rotate: revoke and reissue in one transaction, same mode. */
export const rotateApiKey: RouteHandler<UserPrincipal> = async ({ principal, body, pathParameters }) => {
  requireKeyManager(principal.role);
  const input = parseInput(RotateApiKeyBody, body, 'body');
  const keyId = pathParameters.id;
  if (!isApiKeyId(keyId)) throw new NotFound('No such API key.');
  const issued = await rotate({
    accountId: principal.accountId,
    keyId,
    actorUserId: principal.userId,
    ...(input.label !== undefined && { label: input.label }),
  });
  if (!issued) throw new NotFound('No such API key.');
  return { status: 201, body: serializeIssuedKey(issued) };
};

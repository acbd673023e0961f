import { CreateApiKeyBody, requireKeyManager, serializeIssuedKey } from '#shared/domain/api-keys.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { RouteHandler, UserPrincipal } from '#shared/http/types.ts';
import { issueApiKey } from '#shared/services/issue-api-key.ts';

/** POST /v1/api-keys */
export const createApiKey: RouteHandler<UserPrincipal> = async ({ principal, body }) => {
  requireKeyManager(principal.role);
  const input = parseInput(CreateApiKeyBody, body, 'body');
  const issued = await issueApiKey({
    accountId: principal.accountId,
    mode: input.test ? 'test' : 'live',
    label: input.label ?? '',
    actorUserId: principal.userId,
  });
  return { status: 201, body: serializeIssuedKey(issued) };
};

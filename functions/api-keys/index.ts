import { createApiHandler } from '#shared/http/api-handler.ts';
import { createApiKey } from './create-api-key.ts';
import { listApiKeyAudit } from './list-api-key-audit.ts';
import { listApiKeys } from './list-api-keys.ts';
import { revokeApiKey } from './revoke-api-key.ts';
import { rotateApiKey } from './rotate-api-key.ts';

export const handler = createApiHandler('api-keys', {
  createApiKey,
  listApiKeys,
  listApiKeyAudit,
  rotateApiKey,
  revokeApiKey,
});

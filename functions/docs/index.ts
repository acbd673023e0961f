import { createApiHandler } from '#shared/http/api-handler.ts';
import { getApiReference } from './get-api-reference.ts';
import { getApiReferenceScript } from './get-api-reference-script.ts';
import { getOpenApiDocument } from './get-open-api-document.ts';

/**
 * Also serves API Gateway's `$default` route (`fallbackGroup`), answering unknown paths with the
 * 404 envelope: it has no table and no secret, the least an unmatched request should reach.
 */
export const handler = createApiHandler('docs', {
  getOpenApiDocument,
  getApiReference,
  getApiReferenceScript,
});

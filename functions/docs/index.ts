import { createApiHandler } from '#shared/http/api-handler.ts';
import { getApiReference } from './get-api-reference.ts';
import { getApiReferenceScript } from './get-api-reference-script.ts';
import { getOpenApiDocument } from './get-open-api-document.ts';

export const handler = createApiHandler('docs', {
  getOpenApiDocument,
  getApiReference,
  getApiReferenceScript,
});

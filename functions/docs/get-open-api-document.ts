import { openApiDocument } from '#shared/http/openapi/document.ts';
import type { RouteHandler } from '#shared/http/types.ts';

/** GET /v1/openapi.json: the generated document (the same as `docs/openapi.json`). */
export const getOpenApiDocument: RouteHandler<undefined> = async () => ({
  status: 200,
  body: openApiDocument(),
  headers: { 'Cache-Control': 'public, max-age=300' },
});

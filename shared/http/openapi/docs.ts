/** `docs` group: this document and its reference page. */

import * as v from 'valibot';
import type { Operations } from './operation.ts';

/** The OpenAPI 3.1 document itself (its own schema is OpenAPI's). */
const OpenApiDocument = v.strictObject({
  openapi: v.literal('3.1.0'),
  info: v.record(v.string(), v.unknown()),
  servers: v.array(v.record(v.string(), v.unknown())),
  tags: v.array(v.record(v.string(), v.unknown())),
  paths: v.record(v.string(), v.unknown()),
  components: v.record(v.string(), v.unknown()),
});

export const docsOperations: Operations<'docs'> = {
  getOpenApiDocument: {
    summary: 'This API’s OpenAPI document',
    description: 'Generated from the route manifest and the schemas that validate requests.',
    responses: {
      200: { description: 'The OpenAPI 3.1 document.', schema: OpenApiDocument, headers: ['Cache-Control'] },
    },
  },
  getApiReference: {
    summary: 'API reference page',
    description: 'A browsable reference of this document, served with its script (no CDN).',
    responses: {
      200: {
        description: 'The page.',
        contentType: 'text/html; charset=utf-8',
        headers: ['Cache-Control', 'Content-Security-Policy'],
      },
    },
  },
  getApiReferenceScript: {
    summary: 'API reference page script',
    responses: {
      200: {
        description: 'The script.',
        contentType: 'text/javascript; charset=utf-8',
        headers: ['Cache-Control'],
      },
    },
  },
};

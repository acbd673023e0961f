/** `npm run openapi`: writes the generated OpenAPI document to `docs/openapi.json` (committed). */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../shared/http/openapi/document.ts';

const OPENAPI_FILE = join(import.meta.dirname, '..', 'docs', 'openapi.json');

writeFileSync(OPENAPI_FILE, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${OPENAPI_FILE}`);

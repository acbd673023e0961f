/**
 * The SDK is typed from the contract, never by hand: its generated module must be exactly what
 * openapi-typescript makes of the committed OpenAPI document (`npm run sdk:types` after a change).
 */

import { readFile } from 'node:fs/promises';
import openapiTS, { type OpenAPI3 } from 'openapi-typescript';
import { expect, it } from 'vitest';

it('sdk/src/openapi.ts is generated from the current docs/openapi.json', async () => {
  const document = JSON.parse(await readFile('docs/openapi.json', 'utf8')) as OpenAPI3;
  const generated = await openapiTS(document);
  const committed = await readFile('sdk/src/openapi.ts', 'utf8');
  expect(generated === committed, 'sdk/src/openapi.ts is stale: run `npm run sdk:types`').toBe(true);
});

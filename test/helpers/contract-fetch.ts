/**
 * Integration setup file: every `fetch` to the suite's runtime goes through the contract check
 * (`contract.ts`), whoever calls it (the `api()` helper or a test's own fetch). A violation is
 * recorded and fails the test that received it (after it ends, so a polling loop that swallows
 * errors cannot hide it).
 */

import { afterAll, afterEach } from 'vitest';
import { BODY_UNCHECKED, contractViolation } from './contract.ts';
import { testBaseUrl } from './local-env.ts';

const apiOrigin = new URL(testBaseUrl).origin;
const violations: string[] = [];
const realFetch = globalThis.fetch;

globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await realFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  // A test-only fault (`x-fault-inject`, README) is not part of the API the document describes.
  if (url.origin !== apiOrigin || new Headers(init?.headers).has('x-fault-inject')) return response;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const contentType = response.headers.get('content-type');
  // Bytes (an image) are checked by content type only: reading them as text is not needed.
  const text = contentType?.startsWith('image/') ? '' : await response.clone().text();
  const bodyChecked = !new Headers(init?.headers).has(Object.keys(BODY_UNCHECKED)[0] ?? '');
  const violation = contractViolation(method, url, response.status, contentType, text, bodyChecked);
  if (violation) violations.push(violation);
  return response;
};

const failOnViolations = () => {
  if (violations.length === 0) return;
  const found = violations.splice(0);
  throw new Error(`OpenAPI contract broken (${found.length}):\n${found.join('\n')}`);
};

afterEach(failOnViolations);
afterAll(failOnViolations);

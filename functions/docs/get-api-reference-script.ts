import { readFile } from 'node:fs/promises';
import type { RouteHandler } from '#shared/http/types.ts';

/**
 * Scalar's standalone browser bundle. Deployed, the stack copies it beside the Lambda's bundle
 * (`api-reference.js`); locally it is read from node_modules.
 */
async function loadScript(): Promise<string> {
  try {
    return await readFile(new URL('./api-reference.js', import.meta.url), 'utf8');
  } catch {
    // The package exports no path to its browser bundle: it sits beside its main module.
    return readFile(new URL('./browser/standalone.js', import.meta.resolve('@scalar/api-reference')), 'utf8');
  }
}

let script: Promise<string> | undefined;

/** GET /docs/api-reference.js: the reference page's script, read once per cold start. */
export const getApiReferenceScript: RouteHandler<undefined> = async () => {
  script ??= loadScript();
  return {
    status: 200,
    raw: { contentType: 'text/javascript; charset=utf-8', body: await script },
    headers: { 'Cache-Control': 'public, max-age=86400' },
  };
};

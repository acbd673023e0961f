/**
 * The runtime's handlers served in this test file's own process (`createApiServer`,
 * infra/local/http-server.ts), against the suite's emulators: for a fault injected in this
 * process only (an environment variable, a client middleware), which the suite's runtime must
 * not see. Call at the top of a file.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export function inProcessApi(hooks: { before?: () => void; after?: () => void } = {}): {
  baseUrl: () => string;
} {
  let server: Server | undefined;
  let baseUrl = '';
  beforeAll(async () => {
    // First: the handlers read their environment and build their clients when first imported.
    hooks.before?.();
    const { createApiServer } = await import('../../infra/local/http-server.ts');
    const started = createApiServer();
    server = started;
    await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(started.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    hooks.after?.();
  });
  return { baseUrl: () => baseUrl };
}

import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/docs/index.ts';
import type { ApiEvent } from '../../shared/http/types.ts';
import { fallbackGroup } from '../../shared/routes.ts';

/** What API Gateway sends the `$default` integration for a path no route matches. */
const unmatched = (method: string, path: string): ApiEvent => ({
  version: '2.0',
  routeKey: '$default',
  rawPath: path,
  rawQueryString: '',
  headers: {},
  isBase64Encoded: false,
  requestContext: {
    accountId: 'local',
    apiId: 'local',
    domainName: 'localhost',
    domainPrefix: 'localhost',
    http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
    requestId: 'gw',
    routeKey: '$default',
    stage: '$default',
    time: '',
    timeEpoch: 0,
  },
});

describe('the $default route (fallbackGroup)', () => {
  it('is served by the docs Lambda, which answers the 404 envelope with no table configured', async () => {
    expect(fallbackGroup).toBe('docs');
    const tableName = process.env.TABLE_NAME;
    delete process.env.TABLE_NAME;
    try {
      for (const [method, path] of [
        ['GET', '/v1/does-not-exist'],
        ['DELETE', '/v1/wallets/balance'],
      ] as const) {
        const result = await handler(unmatched(method, path), {} as Context);
        expect(result.statusCode).toBe(404);
        expect(result.headers?.['Content-Type']).toBe('application/json');
        expect(JSON.parse(result.body ?? '{}').error).toMatchObject({
          type: 'not_found_error',
          code: 'not_found',
        });
      }
    } finally {
      if (tableName !== undefined) process.env.TABLE_NAME = tableName;
    }
  });
});

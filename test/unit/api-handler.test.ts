import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as docsHandler } from '../../functions/docs/index.ts';
import { createApiHandler, loggedPath } from '../../shared/http/api-handler.ts';
import { HttpError } from '../../shared/http/errors.ts';
import type { ApiEvent } from '../../shared/http/types.ts';
import { fallbackGroup } from '../../shared/routes.ts';

const event = (overrides: Partial<ApiEvent> = {}): ApiEvent => ({
  version: '2.0',
  routeKey: 'POST /v1/auth/login',
  rawPath: '/v1/auth/login',
  rawQueryString: '',
  headers: { 'content-type': 'application/json' },
  body: '{}',
  isBase64Encoded: false,
  requestContext: {
    accountId: 'local',
    apiId: 'local',
    domainName: 'localhost',
    domainPrefix: 'localhost',
    http: {
      method: 'POST',
      path: '/v1/auth/login',
      protocol: 'HTTP/1.1',
      sourceIp: '127.0.0.1',
      userAgent: 'test',
    },
    requestId: 'gw',
    routeKey: 'POST /v1/auth/login',
    stage: '$default',
    time: '',
    timeEpoch: 0,
  },
  ...overrides,
});

const context = {} as Context;
const logout = async () => ({ status: 204 });

describe('createApiHandler', () => {
  it('turns an unexpected error into a 500 api_error that reveals nothing', async () => {
    const handler = createApiHandler('auth', {
      login: async () => {
        throw new Error('connection string postgres://admin:hunter2@db');
      },
      logout,
    });
    const result = await handler(event(), context);
    expect(result.statusCode).toBe(500);
    const body = JSON.parse(result.body ?? '{}');
    expect(body.error).toEqual({
      type: 'api_error',
      code: 'internal_error',
      message: 'An unexpected error occurred.',
    });
    expect(result.body).not.toContain('hunter2');
    expect(body.request_id).toBe(result.headers?.['X-Request-Id']);
    expect(result.headers?.['Strict-Transport-Security']).toBe('max-age=31536000');
  });

  it('renders HttpErrors with param and details, and echoes a sent X-Request-Id', async () => {
    const handler = createApiHandler('auth', {
      login: async () => {
        throw new HttpError(400, 'invalid_amount', 'Bad amount', {
          param: 'amount',
          details: [{ param: 'amount', message: 'must be > 0' }],
        });
      },
      logout,
    });
    const result = await handler(
      event({ headers: { 'content-type': 'application/json', 'x-request-id': 'abc-123' } }),
      context,
    );
    expect(result.statusCode).toBe(400);
    expect(result.headers?.['X-Request-Id']).toBe('abc-123');
    expect(result.headers?.['Strict-Transport-Security']).toBe('max-age=31536000');
    expect(JSON.parse(result.body ?? '{}')).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'invalid_amount',
        // Each message a sentence, as every error the service writes (shared/domain/errors.ts).
        message: 'Bad amount.',
        param: 'amount',
        details: [{ param: 'amount', message: 'must be > 0.' }],
      },
      request_id: 'abc-123',
    });
  });

  it('replaces an unusable X-Request-Id with a generated one', async () => {
    const handler = createApiHandler('auth', { login: async () => ({ status: 200, body: {} }), logout });
    const result = await handler(
      event({ headers: { 'content-type': 'application/json', 'x-request-id': 'has space' } }),
      context,
    );
    expect(result.headers?.['X-Request-Id']).toMatch(/^req_/);
  });

  it('answers 404 for a route key of another group or API Gateway’s $default', async () => {
    const handler = createApiHandler('auth', { login: async () => ({ status: 200 }), logout });
    for (const routeKey of ['$default', 'GET /v1/wallets']) {
      const result = await handler(event({ routeKey }), context);
      expect(result.statusCode).toBe(404);
      expect(JSON.parse(result.body ?? '{}').error.code).toBe('not_found');
    }
  });

  it('answers 400 invalid_request, naming no field, for a body that is not a JSON object', async () => {
    let called = false;
    const handler = createApiHandler('auth', {
      login: async () => {
        called = true;
        return { status: 200, body: { ok: true } };
      },
      logout,
    });
    for (const body of ['[]', '"x"', '1', 'null', '', undefined]) {
      const result = await handler(event({ body }), context);
      expect(result.statusCode, String(body)).toBe(400);
      const { error } = JSON.parse(result.body ?? '{}');
      expect(error).toEqual({
        type: 'invalid_request_error',
        code: 'invalid_request',
        message: 'The request body must be a JSON object.',
      });
    }
    expect(called).toBe(false);
  });

  it('decodes base64 bodies and passes the parsed JSON to the route', async () => {
    let seen: unknown;
    const handler = createApiHandler('auth', {
      login: async ({ body }: { body: unknown }) => {
        seen = body;
        return { status: 200, body: { ok: true } };
      },
      logout,
    });
    const result = await handler(
      event({ body: Buffer.from('{"a":1}').toString('base64'), isBase64Encoded: true }),
      context,
    );
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['Content-Type']).toBe('application/json');
    expect(seen).toEqual({ a: 1 });
  });

  it('never logs or echoes a provider callback token, on a matched route or not', () => {
    const token = 'cbt_secretsecretsecret';
    expect(loggedPath(`/v1/provider-callbacks/${token}/pix`)).toBe('/v1/provider-callbacks/{token}/pix');
    expect(loggedPath(`/v1/provider-callbacks/${token}/pix/extra`)).toBe(
      '/v1/provider-callbacks/{token}/pix/extra',
    );
    expect(loggedPath(`/v1/provider-callbacks/${token}`)).toBe('/v1/provider-callbacks/{token}');
    expect(loggedPath('/v1/charges/ch_1')).toBe('/v1/charges/ch_1');
    // Empty segments, which route matching skips, do not hide the token either.
    expect(loggedPath(`/v1//provider-callbacks/${token}/pix`)).toBe('/v1/provider-callbacks/{token}/pix');
    expect(loggedPath(`/v1/provider-callbacks//${token}/pix`)).toBe('/v1/provider-callbacks/{token}/pix');
    // Nor does another case, which matches no route but still carries it.
    expect(loggedPath(`/V1/Provider-Callbacks/${token}/pix`)).toBe('/V1/Provider-Callbacks/{token}/pix');
  });

  it('answers an unknown route 404 without repeating a token in the path', async () => {
    const handler = createApiHandler('auth', { login: async () => ({ status: 200 }), logout });
    const path = '/v1/provider-callbacks/cbt_secretsecretsecret/pix';
    const result = await handler(event({ routeKey: '$default', rawPath: path }), context);
    expect(result.statusCode).toBe(404);
    expect(result.body).not.toContain('cbt_secret');
    expect(JSON.parse(result.body ?? '{}').error.message).toContain('/v1/provider-callbacks/{token}/pix');
  });
});

/** What API Gateway sends the `$default` integration for a path no route matches. */
function unmatched(method: string, path: string): ApiEvent {
  const { body: _none, ...base } = event({ routeKey: '$default', rawPath: path, headers: {} });
  return {
    ...base,
    requestContext: {
      ...base.requestContext,
      routeKey: '$default',
      http: { ...base.requestContext.http, method, path },
    },
  };
}

describe('the $default route (fallbackGroup)', () => {
  it('is served by the docs Lambda (no table, no secret), which answers the 404 envelope', async () => {
    expect(fallbackGroup).toBe('docs');
    for (const [method, path] of [
      ['GET', '/v1/does-not-exist'],
      ['DELETE', '/v1/wallets/balance'],
    ] as const) {
      const result = await docsHandler(unmatched(method, path), context);
      expect(result.statusCode).toBe(404);
      expect(result.headers?.['Content-Type']).toBe('application/json');
      expect(JSON.parse(result.body ?? '{}').error).toMatchObject({
        type: 'not_found_error',
        code: 'not_found',
      });
    }
  });
});

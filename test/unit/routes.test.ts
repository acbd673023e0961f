import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../shared/http/openapi/document.ts';
import { findRouteByKey, matchRoute, routeKey, routes } from '../../shared/routes.ts';

describe('route manifest', () => {
  it('has unique ids and unique METHOD /path keys', () => {
    expect(new Set(routes.map((r) => r.id)).size).toBe(routes.length);
    expect(new Set(routes.map(routeKey)).size).toBe(routes.length);
  });

  it('matches paths with parameters, decoding them', () => {
    expect(matchRoute('POST', '/v1/api-keys/abc%2Fdef/rotate')).toMatchObject({
      route: { id: 'rotateApiKey' },
      pathParameters: { id: 'abc/def' },
    });
    expect(matchRoute('DELETE', '/v1/api-keys/123')?.route.id).toBe('revokeApiKey');
  });

  it('prefers literal segments over parameters, as API Gateway does', () => {
    expect(matchRoute('GET', '/v1/api-keys/audit-log')?.route.id).toBe('listApiKeyAudit');
  });

  it('matches nothing for other methods, extra segments or empty parameters', () => {
    expect(matchRoute('PATCH', '/v1/api-keys')).toBeUndefined();
    expect(matchRoute('GET', '/v1/wallets/balance/extra')).toBeUndefined();
    expect(matchRoute('DELETE', '/v1/api-keys/')).toBeUndefined();
  });

  it('matches nothing for a malformed escape in a parameter (it names no resource)', () => {
    expect(matchRoute('GET', '/v1/charges/%ZZ')).toBeUndefined();
  });

  it('says a route reads a query string exactly where its OpenAPI operation describes one', () => {
    const paths = buildOpenApiDocument().paths as Record<
      string,
      Record<string, { parameters?: { in: string }[] }>
    >;
    for (const route of routes) {
      const operation = paths[route.path]?.[route.method.toLowerCase()];
      const describesQuery = (operation?.parameters ?? []).some((p) => p.in === 'query');
      expect({ route: route.id, query: 'query' in route }).toEqual({
        route: route.id,
        query: describesQuery,
      });
    }
  });

  it('finds a route by the routeKey API Gateway sends', () => {
    expect(findRouteByKey('GET /v1/wallets')?.id).toBe('listWallets');
    expect(findRouteByKey('$default')).toBeUndefined();
  });
});

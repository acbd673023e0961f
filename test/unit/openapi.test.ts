import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '#shared/http/openapi/document.ts';
import { type RouteDefinition, routes } from '#shared/routes.ts';

const document = buildOpenApiDocument();
const operationOf = (method: string, path: string) =>
  (
    document.paths[path] as
      | Record<string, { operationId: string; responses: Record<string, unknown> }>
      | undefined
  )?.[method.toLowerCase()];

describe('the OpenAPI document', () => {
  it('is the committed docs/openapi.json (run `npm run openapi` after changing a route or a schema)', () => {
    const committed = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'),
    );
    expect(committed).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    'describes %s',
    (_key, route) => {
      const operation = operationOf(route.method, route.path);
      expect(operation?.operationId, `${route.id} is missing from the document`).toBe(route.id);
      const statuses = Object.keys(operation?.responses ?? {});
      expect(statuses.some((status) => status.startsWith('2'))).toBe(true);
      expect(statuses).toContain('500');
    },
  );

  it.each(routes.map((route) => [route.id, route as RouteDefinition] as const))(
    'gives %s a request body exactly when the manifest says it reads one',
    (_id, route) => {
      const operation = operationOf(route.method, route.path) as { requestBody?: { required: boolean } };
      expect(operation.requestBody?.required).toBe(
        route.body === undefined ? undefined : route.body === 'required',
      );
    },
  );

  it('bounds a text in characters as closely as JSON Schema can: the appeal reason is 5–2000', () => {
    const appeal = operationOf('POST', '/v1/med/cases/{id}/appeal') as unknown as {
      requestBody: { content: { 'application/json': { schema: { properties: { reason: object } } } } };
    };
    expect(appeal.requestBody.content['application/json'].schema.properties.reason).toMatchObject({
      minLength: 5,
      maxLength: 2000,
    });
  });

  it('holds no operation the manifest does not have', () => {
    const described = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(described.sort()).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('lists on each error response the codes the route decides, beside the common ones', () => {
    const refund = operationOf('POST', '/v1/payments/{id}/refund')?.responses['400'] as {
      content: { 'application/json': { schema: { allOf: [unknown, { properties: { error: any } }] } } };
    };
    const codes = refund.content['application/json'].schema.allOf[1].properties.error.properties.code.enum;
    expect(codes).toEqual(
      expect.arrayContaining([
        'invalid_request',
        'invalid_json',
        'payment_not_refundable',
        'insufficient_balance',
      ]),
    );
  });

  it('has examples that match their schemas', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ((addFormatsPlugin as { default?: unknown }).default as (a: Ajv2020) => void)(ajv);
    ajv.addSchema(document as object, 'openapi.json');
    const schemas = document.components.schemas as Record<string, { examples?: unknown[] }>;
    const withExamples = Object.entries(schemas).filter(([, schema]) => schema.examples !== undefined);
    expect(withExamples.map(([name]) => name)).toEqual(
      expect.arrayContaining(['Charge', 'Refund', 'WalletBalance']),
    );
    for (const [name, schema] of withExamples) {
      const validate = ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` });
      for (const example of schema.examples ?? [])
        expect(validate(example), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('gives the create routes a request body example their schema accepts (a reference page sends it as is)', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ((addFormatsPlugin as { default?: unknown }).default as (a: Ajv2020) => void)(ajv);
    type Media = { schema: object; example?: unknown };
    const examples = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { requestBody?: { content: Record<string, Media> } }>).flatMap(
        ([method, operation]) => {
          const media = operation.requestBody?.content['application/json'];
          return media?.example === undefined ? [] : [{ name: `${method} ${path}`, ...media }];
        },
      ),
    );
    expect(examples.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['post /v1/charges', 'post /v1/pix/charges', 'post /v1/payments/{id}/refund']),
    );
    for (const { name, schema, example } of examples) {
      const validate = ajv.compile({ ...schema, components: document.components });
      expect(validate(example), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });
});

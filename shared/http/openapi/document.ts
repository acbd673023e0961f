/**
 * The OpenAPI 3.1 document, generated: paths, methods and security from the route manifest
 * (`shared/routes.ts`), request schemas from the valibot schemas the handlers parse with, and
 * responses from each group's operations (`shared/http/openapi/<group>.ts`), all converted by
 * `@valibot/to-json-schema`. Never edited by hand: `npm run openapi` writes `docs/openapi.json`,
 * and `GET /v1/openapi.json` serves the same document.
 */

import {
  type ConversionConfig,
  type JsonSchema,
  toJsonSchema,
  toJsonSchemaDefs,
} from '@valibot/to-json-schema';
import type * as v from 'valibot';
import {
  IDEMPOTENCY_KEY_MAX,
  IDEMPOTENCY_KEY_MIN,
  IDEMPOTENCY_KEY_PATTERN,
} from '../../domain/charge-input.ts';
import { type RouteDefinition, type RouteId, routes } from '../../routes.ts';
import { ERROR_TYPES, type ErrorStatus } from '../errors.ts';
import { ApiKeyAuditEvent, ApiKeyListItem, apiKeyOperations, IssuedApiKey } from './api-keys.ts';
import { authOperations, LoginResponse } from './auth.ts';
import { Charge, chargeOperations } from './charges.ts';
import { CheckoutStatus, checkoutOperations } from './checkout.ts';
import { docsOperations } from './docs.ts';
import { MedCase, MedEvidence, MedEvidenceUpload, medOperations } from './med.ts';
import type { Operation, ResponseHeader, Schema, SuccessResponse } from './operation.ts';
import {
  Payment,
  PaymentCreated,
  PaymentMetrics,
  PaymentStats,
  ProviderStatus,
  paymentOperations,
  Refund,
} from './payments.ts';
import { providerCallbackOperations } from './provider-callbacks.ts';
import { sandboxOperations } from './sandbox.ts';
import { CurrencyBalance, WalletBalance, WalletListItem, walletOperations } from './wallets.ts';
import {
  EventCatalogEntry,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointListItem,
  webhookOperations,
} from './webhooks.ts';

/** Every route's operation, by route id: one table per group. */
const operations: Readonly<Record<RouteId, Operation>> = {
  ...authOperations,
  ...apiKeyOperations,
  ...chargeOperations,
  ...paymentOperations,
  ...walletOperations,
  ...webhookOperations,
  ...medOperations,
  ...checkoutOperations,
  ...sandboxOperations,
  ...providerCallbackOperations,
  ...docsOperations,
};

/** Schemas shown once under `components.schemas` and referenced wherever they appear. */
const namedSchemas: Record<string, Schema> = {
  Charge,
  Payment,
  PaymentCreated,
  Refund,
  PaymentStats,
  PaymentMetrics,
  ProviderStatus,
  WalletBalance,
  CurrencyBalance,
  WalletListItem,
  WebhookEndpoint,
  WebhookEndpointListItem,
  WebhookDelivery,
  EventCatalogEntry,
  MedCase,
  MedEvidence,
  MedEvidenceUpload,
  IssuedApiKey,
  ApiKeyListItem,
  ApiKeyAuditEvent,
  LoginResponse,
  CheckoutStatus,
};

const GROUP_DESCRIPTIONS: Record<RouteDefinition['group'], string> = {
  auth: 'Dashboard login and logout (the token the API key routes need).',
  'api-keys': 'Merchant API keys, managed with a dashboard token.',
  charges: 'Pix charges: BR Code, QR image and hosted checkout in one response.',
  payments: 'The transaction-format view of charges: refunds, cancels, receipts, stats and metrics.',
  wallets: 'Balances per currency.',
  webhooks: 'Webhook endpoints, deliveries and the event catalog.',
  med: 'MED (Pix dispute) cases and their evidence; `/v1/infractions` serves the same routes.',
  checkout: 'Public pages and documents for payers and their banks (capability URLs, no auth).',
  sandbox: 'Test mode only (`ak_test_` keys; live keys get 404): act as the acquirer and the payer’s bank.',
  'provider-callbacks':
    'A live acquirer’s API Pix callbacks (the URL `set-provider` registers; a token in the path, no key).',
  docs: 'This document and its reference page.',
};

const SECURITY: Record<RouteDefinition['auth'], Record<string, string[]>[]> = {
  apikey: [{ apiKey: [] }],
  jwt: [{ dashboardToken: [] }],
  none: [],
};

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit-Minute', 'X-RateLimit-Remaining-Minute'];

type Json = Record<string, unknown>;

const ref = (name: string) => `#/components/schemas/${name}`;

const GRAPHEME_BOUNDS: Record<string, 'maxLength' | 'minLength' | undefined> = {
  max_graphemes: 'maxLength',
  min_graphemes: 'minLength',
};

function converter(typeMode: 'input' | 'output') {
  const config: ConversionConfig = {
    target: 'draft-2020-12',
    typeMode,
    // Transforms and custom checks have no JSON Schema; the handler still applies them.
    errorMode: 'ignore',
    // `maxChars` (validation.ts) counts grapheme clusters; JSON Schema's `maxLength` counts code
    // points, never fewer, so a value the document allows is never refused for its length. A
    // minimum in graphemes is mapped too: `minLength` never refuses what the service accepts (n
    // graphemes are at least n code points), and is as close as JSON Schema gets.
    overrideAction: ({ valibotAction: action, jsonSchema }) => {
      const bound = GRAPHEME_BOUNDS[action.type];
      if (bound === undefined) return undefined;
      return { ...jsonSchema, [bound]: (action as v.MinGraphemesAction<string, number, string>).requirement };
    },
    ...(typeMode === 'output' && { definitions: namedSchemas, overrideRef: (c) => ref(c.referenceId) }),
  };
  return {
    convert: (schema: Schema): Json => {
      const { $schema: _, $defs: __, ...json } = toJsonSchema(schema, config) as Json;
      return json;
    },
    defs: () => toJsonSchemaDefs(namedSchemas, config) as Record<string, JsonSchema>,
  };
}
const requestSchema = converter('input');
const responseSchema = converter('output');

function errorEnvelope(status: ErrorStatus, codes: readonly string[]): Json {
  const [first = 'internal_error'] = codes;
  return {
    description: `Error${codes.length > 1 ? 's' : ''}: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    content: {
      'application/json': {
        // The envelope, narrowed to this status's type and this route's codes.
        schema: {
          allOf: [
            { $ref: ref('ErrorEnvelope') },
            {
              properties: {
                error: { properties: { type: { const: ERROR_TYPES[status] }, code: { enum: [...codes] } } },
              },
            },
          ],
        },
        example: {
          error: { type: ERROR_TYPES[status], code: first, message: 'A human-readable explanation.' },
          request_id: 'req_0b6f2a3c-8f4e-4d0e-9c1a-3e5b7d9f1a2c',
        },
      },
    },
  };
}

/** The error codes a route can answer: its own, and what every route of its kind can. */
function errorCodesOf(route: RouteDefinition): Partial<Record<ErrorStatus, string[]>> {
  const operation = operations[route.id as RouteId];
  const codes: Partial<Record<ErrorStatus, Set<string>>> = {};
  const add = (status: ErrorStatus, ...more: readonly string[]) => {
    const set = codes[status] ?? new Set();
    for (const code of more) set.add(code);
    codes[status] = set;
  };
  // An authenticated route names any query parameter or body it does not read (routes.ts, `query`).
  if (route.auth !== 'none') add(400, 'invalid_request', 'invalid_json');
  if (operation.body !== undefined || operation.query !== undefined || operation.idempotencyKeyHeader)
    add(400, 'invalid_request');
  if (operation.body !== undefined) add(400, 'invalid_json');
  if (route.auth !== 'none') add(401, 'unauthorized');
  if (route.path.includes('{')) add(404, 'not_found');
  for (const [status, more] of Object.entries(operation.errors ?? {}))
    add(Number(status) as ErrorStatus, ...(more ?? []));
  if (route.auth === 'apikey') add(429, 'rate_limited');
  add(500, 'internal_error');
  return Object.fromEntries(
    Object.entries(codes)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([status, set]) => [status, [...set]]),
  );
}

const errorResponse = (
  route: Pick<RouteDefinition, 'auth'>,
  status: ErrorStatus,
  codes: readonly string[],
) => ({
  ...errorEnvelope(status, codes),
  headers: headersOf(route, [], status),
});

/** A 404 that a browser (`Accept: text/html`) gets as an HTML page, other clients as the envelope. */
function withNotFoundPage(route: Pick<RouteDefinition, 'auth'>, codes: readonly string[]): Json {
  const { description, content } = errorEnvelope(404, codes) as { description: string; content: Json };
  return {
    description: `${description} A browser (\`Accept: text/html\`) gets an HTML page instead.`,
    content: { ...content, 'text/html; charset=utf-8': { schema: { type: 'string' } } },
    headers: headersOf(route, [], 404),
  };
}

/**
 * The errors most routes share (401, 404, 429 and 500 with their one common code) are written
 * once under `components.responses`, one per kind of authentication (their headers differ).
 */
const SHARED_ERRORS: Partial<Record<ErrorStatus, [code: string, name: string]>> = {
  401: ['unauthorized', 'Unauthorized'],
  404: ['not_found', 'NotFound'],
  429: ['rate_limited', 'RateLimited'],
  500: ['internal_error', 'InternalError'],
};
const AUTH_PREFIX: Record<RouteDefinition['auth'], string> = {
  apikey: 'ApiKey',
  jwt: 'Token',
  none: 'Public',
};

function sharedErrorResponseName(
  route: Pick<RouteDefinition, 'auth'>,
  status: ErrorStatus,
  codes: readonly string[],
): string | undefined {
  const shared = SHARED_ERRORS[status];
  return shared && codes.length === 1 && codes[0] === shared[0]
    ? `${AUTH_PREFIX[route.auth]}${shared[1]}`
    : undefined;
}

function sharedErrorResponses(): Record<string, Json> {
  const responses: Record<string, Json> = {};
  for (const route of routes)
    for (const [status, codes = []] of Object.entries(errorCodesOf(route))) {
      const name = sharedErrorResponseName(route, Number(status) as ErrorStatus, codes);
      if (name) responses[name] ??= errorResponse(route, Number(status) as ErrorStatus, codes);
    }
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

function headersOf(
  route: Pick<RouteDefinition, 'auth'>,
  own: readonly ResponseHeader[] = [],
  status?: number,
): Json {
  const names = [
    'X-Request-Id',
    ...(route.auth === 'apikey' ? RATE_LIMIT_HEADERS : []),
    // A 503's only when the acquirer said when to come back.
    ...(status === 429 || status === 503 ? ['Retry-After'] : []),
    ...own,
  ];
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function successResponse(route: RouteDefinition, response: SuccessResponse): Json {
  if ('empty' in response) return { description: response.description, headers: headersOf(route) };
  const headers = headersOf(route, response.headers);
  if ('contentType' in response) {
    const schema = response.binary
      ? { type: 'string', contentMediaType: response.contentType.split(';')[0] }
      : { type: 'string' };
    return { description: response.description, headers, content: { [response.contentType]: { schema } } };
  }
  const schema = responseSchema.convert(response.schema);
  return {
    description: response.description,
    headers,
    content: {
      'application/json': { schema, ...(response.example !== undefined && { example: response.example }) },
    },
  };
}

/** Query parameters, one per property of the query's object schema. */
function queryParameters(query: Schema): Json[] {
  const json = requestSchema.convert(query) as { properties?: Record<string, Json>; required?: string[] };
  const entries = (query as Partial<v.StrictObjectSchema<v.ObjectEntries, undefined>>).entries ?? {};
  return Object.entries(json.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema as { description?: string } & Json;
    const entry = entries[name];
    return {
      name,
      in: 'query',
      required: json.required?.includes(name) ?? false,
      ...(description !== undefined && { description }),
      schema: (entry && integerQuerySchema(entry)) ?? rest,
    };
  });
}

/**
 * A query integer (`queryInteger`: digits, then `Number`, then bounds) as the integer it is: the
 * conversion sees only the string before the transform and drops the bounds after it.
 */
function integerQuerySchema(entry: v.GenericSchema): Json | undefined {
  const optional =
    entry.type === 'optional' ? (entry as v.OptionalSchema<v.GenericSchema, unknown>) : undefined;
  const inner = optional?.wrapped ?? entry;
  const pipe = (inner as Partial<v.SchemaWithPipe<[v.GenericSchema]>>).pipe as
    | readonly { type: string; requirement?: unknown }[]
    | undefined;
  if (!pipe?.some((item) => item.type === 'transform')) return undefined;
  if (!pipe.some((item) => item.type === 'regex' && String(item.requirement) === String(/^\d+$/)))
    return undefined;
  const bound = (type: string) => pipe.find((item) => item.type === type)?.requirement as number | undefined;
  const [minimum, maximum] = [bound('min_value'), bound('max_value')];
  const fallback = optional?.default;
  return {
    type: 'integer',
    ...(minimum !== undefined && { minimum }),
    ...(maximum !== undefined && maximum < Number.MAX_SAFE_INTEGER && { maximum }),
    ...(typeof fallback === 'string' && { default: Number(fallback) }),
  };
}

function operationOf(route: RouteDefinition): Json {
  const operation = operations[route.id as RouteId];
  if (!operation)
    throw new Error(`No OpenAPI operation for route ${route.id} (${route.method} ${route.path})`);
  const pathParameters = [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const parameters = [
    ...pathParameters,
    ...(operation.query ? queryParameters(operation.query) : []),
    ...(operation.idempotencyKeyHeader ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
  ];
  const responses: Json = {};
  for (const [status, response] of Object.entries(operation.responses))
    if (response) responses[status] = successResponse(route, response);
  for (const [status, codes = []] of Object.entries(errorCodesOf(route))) {
    const shared = sharedErrorResponseName(route, Number(status) as ErrorStatus, codes);
    if (status === '404' && operation.notFoundPage) responses[status] = withNotFoundPage(route, codes);
    else
      responses[status] = shared
        ? { $ref: `#/components/responses/${shared}` }
        : errorResponse(route, Number(status) as ErrorStatus, codes);
  }
  return {
    operationId: route.id,
    summary: operation.summary,
    ...(operation.description !== undefined && { description: operation.description }),
    tags: [route.group],
    security: SECURITY[route.auth],
    ...(parameters.length > 0 && { parameters }),
    ...(operation.body !== undefined && {
      requestBody: {
        required: route.body !== 'optional',
        content: {
          'application/json': {
            schema: requestSchema.convert(unwrapOptional(operation.body)),
            ...(operation.bodyExample !== undefined && { example: operation.bodyExample }),
          },
        },
      },
    }),
    responses,
  };
}

/** An optional body's schema is its object (whether a body is required is `requestBody.required`). */
const unwrapOptional = (schema: Schema): Schema =>
  schema.type === 'optional' ? (schema as v.OptionalSchema<Schema, unknown>).wrapped : schema;

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

export function buildOpenApiDocument() {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationOf(route) };
  }
  return {
    openapi: '3.1.0' as const,
    info: {
      title: 'Pix payment service API',
      version: 'v1',
      summary: 'Pix charges, payments, refunds, wallets, webhooks and MED cases for merchants.',
      description:
        'Amounts are integers in the smallest currency unit (centavos for BRL); timestamps are ISO 8601 UTC. Every response carries `X-Request-Id`; every error is the envelope `{error: {type, code, message, param?, details?}, request_id}`. Test mode: use an `ak_test_` key on the same host.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'The host that serves this document' }],
    tags: Object.entries(GROUP_DESCRIPTIONS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: {
        ...responseSchema.defs(),
        ErrorEnvelope: {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: {
                type: { enum: [...new Set(Object.values(ERROR_TYPES))] },
                code: { type: 'string', description: 'Stable machine code: branch on it.' },
                message: { type: 'string', description: 'Human text; not a contract.' },
                param: { type: 'string', description: 'The failing field, when the error is tied to one.' },
                details: { type: 'array', items: { $ref: ref('ErrorDetail') } },
              },
              required: ['type', 'code', 'message'],
              additionalProperties: false,
            },
            request_id: { type: 'string', description: 'Equal to the `X-Request-Id` header.' },
          },
          required: ['error', 'request_id'],
          additionalProperties: false,
        },
        ErrorDetail: {
          type: 'object',
          properties: {
            param: {
              type: 'string',
              description:
                'The field at fault; `body` or `query` for a rule over the whole of it (say, "send at least one of …").',
            },
            message: { type: 'string' },
          },
          required: ['param', 'message'],
          additionalProperties: false,
        },
      },
      responses: sharedErrorResponses(),
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description:
            'Unique per intended creation: a retry with the same key and body replays the first response.',
          schema: {
            type: 'string',
            minLength: IDEMPOTENCY_KEY_MIN,
            maxLength: IDEMPOTENCY_KEY_MAX,
            pattern: IDEMPOTENCY_KEY_PATTERN.source,
          },
          example: 'order-42-attempt-1',
        },
      },
      headers: {
        'X-Request-Id': header(
          'The request id: echoed when sent (1–200 visible ASCII characters), else generated.',
        ),
        'X-RateLimit-Limit-Minute': header('Requests allowed per minute for this key.', { type: 'integer' }),
        'X-RateLimit-Remaining-Minute': header('Requests left in the current minute.', { type: 'integer' }),
        'Retry-After': header(
          'Seconds to wait before sending the request again: until the rate-limit window ends, a short pause after a refund’s lock_timeout, or, on a 503, what the acquirer asked for (only when it said).',
          { type: 'integer' },
        ),
        'Idempotent-Replayed': header('`true` when this is the stored response of an earlier request.', {
          const: 'true',
        }),
        'Cache-Control': header('How long caches may keep the response (`no-store` for payer data).'),
        'Content-Security-Policy': header('The page’s content security policy.'),
      },
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'apikey',
          description: 'A merchant key, `ak_live_…` or `ak_test_…` (test mode).',
        },
        dashboardToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The dashboard token from `POST /v1/auth/login`.',
        },
      },
    },
  };
}

type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

let built: OpenApiDocument | undefined;

/** Built once per process (it depends on nothing but the code). */
export const openApiDocument = (): OpenApiDocument => {
  built ??= buildOpenApiDocument();
  return built;
};

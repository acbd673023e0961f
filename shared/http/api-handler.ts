/**
 * The one way an API Lambda is built: middy with the shared middlewares, then a dispatcher
 * over the group's routes from the manifest (`event.routeKey`). A group maps every one of its
 * route ids to a handler, so a route without a handler is a compile error.
 */

import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { config } from '../config.ts';
import { InvalidInput, NotFound } from '../domain/errors.ts';
import { isJsonObject, NOT_A_JSON_OBJECT } from '../domain/validation.ts';
import { errorFields, log } from '../log.ts';
import { withMetrics } from '../metrics.ts';
import { withAcquirerBudget } from '../providers/call-budget.ts';
import {
  type AuthKind,
  findRouteByKey,
  type Group,
  type RouteDefinition,
  type RoutesOf,
  routes,
} from '../routes.ts';
import {
  countDynamoDbCalls,
  dynamoDbCallsSoFar,
  dynamoDbRoundTripsSoFar,
  dynamoDbUnitsSoFar,
} from '../store/client.ts';
import { faultRequested } from '../testing/faults.ts';
import { authenticateApiKey, authenticateUser } from './authenticate.ts';
import { toErrorEnvelope } from './errors.ts';
import type {
  ApiEvent,
  ApiRequest,
  ApiResponse,
  ApiResult,
  KeyPrincipal,
  RouteHandler,
  UserPrincipal,
} from './types.ts';

type PrincipalFor<A extends AuthKind> = A extends 'jwt'
  ? UserPrincipal
  : A extends 'apikey'
    ? KeyPrincipal
    : undefined;

type GroupHandlers<G extends Group> = {
  [R in RoutesOf<G> as R['id']]: RouteHandler<PrincipalFor<R['auth']>>;
};

/** Per-request state the middlewares share, carried on the Lambda context. */
interface ApiState {
  requestId: string;
  startedAt: number;
  route?: RouteDefinition;
  request?: ApiRequest<KeyPrincipal | UserPrincipal | undefined>;
  responseHeaders: Record<string, string>;
}
type ApiContext = Context & { api: ApiState };
type ApiMiddleware = middy.MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>;

const REQUEST_ID_PATTERN = /^[\x21-\x7e]{1,200}$/;

/** The segments before a credential segment: each route's path up to its `{token}` (the provider callback URL). */
const TOKEN_PREFIXES = routes.flatMap((r) =>
  r.path.includes('{token}') ? [(r.path.split('{token}')[0] as string).split('/').filter(Boolean)] : [],
);

/**
 * The path as logged and echoed: a credential segment becomes `{token}`, whether or not a route
 * matched (a wrong method or suffix on a callback URL still carries its token). Segments are read
 * as `matchRoute` reads them (empty ones skipped), so `/v1//provider-callbacks/…` is redacted too,
 * and in any case (`/V1/Provider-Callbacks/…` matches no route, yet carries the token).
 */
export function loggedPath(rawPath: string): string {
  const segments = rawPath.split('/').filter(Boolean);
  const prefix = TOKEN_PREFIXES.find(
    (p) => segments.length > p.length && p.every((part, i) => segments[i]?.toLowerCase() === part),
  );
  if (prefix === undefined) return rawPath;
  segments[prefix.length] = '{token}';
  return `/${segments.join('/')}`;
}

/** Outermost: request id, the error envelope, response headers and the request log line. */
const requestEnvelope = (): ApiMiddleware => {
  const finish = (request: middy.Request<ApiEvent, ApiResult, Error, ApiContext>, response: ApiResult) => {
    const state = request.context.api;
    response.headers = {
      ...response.headers,
      ...state.responseHeaders,
      'X-Request-Id': state.requestId,
      // Browsers (the checkout page, /docs) keep to HTTPS for a year; ignored over the local HTTP.
      'Strict-Transport-Security': 'max-age=31536000',
    };
    request.response = response;
    const principal = state.request?.principal;
    log.info('request', {
      requestId: state.requestId,
      routeKey: state.route ? `${state.route.method} ${state.route.path}` : request.event.routeKey,
      path: loggedPath(request.event.rawPath),
      status: response.statusCode,
      durationMs: Date.now() - state.startedAt,
      dynamodbCalls: dynamoDbCallsSoFar(),
      dynamodbRoundTrips: dynamoDbRoundTripsSoFar(),
      dynamodbReadUnits: dynamoDbUnitsSoFar().readUnits,
      dynamodbWriteUnits: dynamoDbUnitsSoFar().writeUnits,
      ...(principal?.kind === 'apikey' && {
        accountId: principal.accountId,
        mode: principal.mode,
        apiKeyFingerprint: principal.fingerprint,
      }),
      ...(principal?.kind === 'user' && { accountId: principal.accountId, userId: principal.userId }),
      ...(request.error && (response.statusCode ?? 500) >= 500 && errorFields(request.error)),
    });
  };
  return {
    before: (request) => {
      const sent = request.event.headers?.['x-request-id'];
      request.context.api = {
        requestId: sent && REQUEST_ID_PATTERN.test(sent) ? sent : `req_${randomUUID()}`,
        startedAt: Date.now(),
        responseHeaders: {},
      };
    },
    after: (request) => finish(request, request.response ?? { statusCode: 204 }),
    onError: (request) => {
      // The context may lack state when a middleware before ours threw.
      request.context.api ??= {
        requestId: `req_${randomUUID()}`,
        startedAt: Date.now(),
        responseHeaders: {},
      };
      const { status, body, headers } = toErrorEnvelope(request.error, request.context.api.requestId);
      finish(request, {
        statusCode: status,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    },
  };
};

/** Finds the route and reads query, path and headers. Unknown route keys (API Gateway `$default`) → 404. */
const parseRequest = (group: Group): ApiMiddleware => ({
  before: (request) => {
    const { event, context } = request;
    const route = findRouteByKey(event.routeKey);
    if (!route || route.group !== group)
      throw new NotFound(`No route for ${event.requestContext.http.method} ${loggedPath(event.rawPath)}.`);
    context.api.route = route;
    const headers = event.headers ?? {};
    context.api.request = {
      route,
      requestId: context.api.requestId,
      principal: undefined,
      body: undefined,
      query: Object.fromEntries(
        Object.entries(event.queryStringParameters ?? {}).filter(
          (e): e is [string, string] => e[1] !== undefined,
        ),
      ),
      pathParameters: Object.fromEntries(
        Object.entries(event.pathParameters ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
      ),
      headers: Object.fromEntries(
        Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined),
      ),
      baseUrl: config.publicBaseUrl ?? `https://${event.requestContext.domainName}`,
      sourceIp: event.requestContext.http.sourceIp,
    };
  },
});

/** A route that reads a JSON object gets one (or, when its body is optional, none); see `RouteDefinition.body`. */
function parseJsonBody(event: ApiEvent, route: RouteDefinition, contentType: string | undefined): unknown {
  // A public page or document (a payer's browser, a bank): a body on its GET means nothing and is
  // not read, so it cannot fail the request either.
  if (route.body === undefined && route.auth === 'none') return undefined;
  const body = parseJson(event, contentType);
  if (route.body === undefined) {
    // A merchant's route that reads no body: anything but nothing or `{}` (which clients send
    // by habit) was meant to say something the route would ignore.
    const [field] = isJsonObject(body) ? Object.keys(body) : [];
    if (body !== undefined && !(isJsonObject(body) && field === undefined))
      throw new InvalidInput(
        'This route takes no request body.',
        field === undefined ? {} : { param: field },
      );
    return body;
  }
  if (body === undefined && route.body === 'optional') return body;
  if (!isJsonObject(body)) throw new InvalidInput(NOT_A_JSON_OBJECT);
  return body;
}

function parseJson(event: ApiEvent, contentType: string | undefined): unknown {
  if (!event.body) return undefined;
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (text.trim() === '') return undefined;
  if (!/^application\/json\b/i.test(contentType ?? '')) {
    throw new InvalidInput('Request bodies must be JSON: send Content-Type: application/json.', {
      param: 'Content-Type',
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidInput('The request body is not valid JSON.', { code: 'invalid_json' });
  }
  const malformed = illFormedStringAt(body);
  if (malformed !== undefined)
    throw new InvalidInput(
      'Strings must be well-formed Unicode: a lone surrogate (\\ud800–\\udfff) cannot be stored or sent back as JSON.',
      malformed === '' ? {} : { param: malformed },
    );
  return body;
}

/**
 * The dot path of the first string (a value or a key) with a lone UTF-16 surrogate, which
 * JSON.parse accepts from `\ud800` but strict JSON parsers refuse when it is sent back (for a key,
 * the object holding it); `''` for the body itself, undefined when every string is well-formed.
 * Iterative, with each node linked to its parent and the path built only when found: a body may
 * nest deeper than the call stack.
 */
function illFormedStringAt(body: unknown): string | undefined {
  interface Node {
    value: unknown;
    key?: string;
    parent?: Node;
  }
  const pathOf = (node: Node | undefined): string => {
    const keys: string[] = [];
    for (let n = node; n?.key !== undefined; n = n.parent) keys.push(n.key);
    return keys.reverse().join('.');
  };
  const pending: Node[] = [{ value: body }];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const { value } = node;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return pathOf(node);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        // The object holding the key: the key itself would make the error ill-formed too.
        if (!key.isWellFormed()) return pathOf(node);
        pending.push({ value: item, key, parent: node });
      }
    }
  }
  return undefined;
}

const authenticate = (): ApiMiddleware => ({
  before: async ({ context }) => {
    const api = context.api;
    const request = api.request;
    if (!request) return;
    if (request.route.auth === 'apikey') {
      const { principal, rateLimitHeaders } = await authenticateApiKey(request.headers.apikey);
      request.principal = principal;
      api.responseHeaders = { ...api.responseHeaders, ...rateLimitHeaders };
    } else if (request.route.auth === 'jwt') {
      request.principal = await authenticateUser(request.headers.authorization);
    }
  },
});

/** After authentication, so an anonymous caller learns nothing from input errors. */
const requestInput = (): ApiMiddleware => ({
  before: ({ event, context }) => {
    const request = context.api.request;
    if (!request) return;
    rejectUnreadQuery(request.route, request.query);
    request.body = parseJsonBody(event, request.route, request.headers['content-type']);
    if (faultRequested('unexpected-error', request.headers))
      throw new Error('Injected unexpected failure (internal detail: cbt_never_shown)');
  },
});

/** A merchant's query parameter the route does not read is a mistake to name, never to ignore. */
function rejectUnreadQuery(route: RouteDefinition, query: Record<string, string>): void {
  if (route.query || route.auth === 'none') return;
  const [name] = Object.keys(query);
  if (name !== undefined)
    throw new InvalidInput('Unknown query parameter: this route takes none.', { param: name });
}

function toResult(response: ApiResponse): ApiResult {
  if (response.raw) {
    const { contentType, body } = response.raw;
    return {
      statusCode: response.status,
      headers: { 'Content-Type': contentType, ...response.headers },
      body: typeof body === 'string' ? body : body.toString('base64'),
      isBase64Encoded: typeof body !== 'string',
    };
  }
  return {
    statusCode: response.status,
    headers: {
      ...(response.body !== undefined && { 'Content-Type': 'application/json' }),
      ...response.headers,
    },
    ...(response.body !== undefined && { body: JSON.stringify(response.body) }),
  };
}

export function createApiHandler<G extends Group>(group: G, handlers: GroupHandlers<G>) {
  const table = handlers as unknown as Record<string, RouteHandler<KeyPrincipal | UserPrincipal | undefined>>;
  const wrapped = middy<ApiEvent, ApiResult, Error, ApiContext>()
    .use(requestEnvelope())
    .use(parseRequest(group))
    .use(authenticate())
    .use(requestInput())
    .handler(async (_event, context) => {
      const request = context.api.request;
      const handle = request && table[request.route.id];
      if (!request || !handle) throw new NotFound();
      return toResult(await handle(request));
    });
  // Metrics (the acquirer's calls) are written once per invocation, after the request log line.
  // The acquirer calls of a request share the `request` budget, so a slow PSP is 503 before the
  // API Lambda's timeout (shared/resources.ts, `acquirerCallBudgets`).
  return withMetrics(
    async (event: ApiEvent, context: Context): Promise<ApiResult> =>
      (
        await withAcquirerBudget('request', () =>
          countDynamoDbCalls(() => wrapped(event, context as ApiContext)),
        )
      ).result,
  );
}

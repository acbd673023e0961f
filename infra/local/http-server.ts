/**
 * The local API Gateway: each HTTP request becomes the HTTP API (payload 2.0) event the
 * deployed API would send, routed with the shared manifest, and is answered by the same
 * exported handler the group's Lambda runs.
 */

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from '../../shared/http/types.ts';
import { fallbackGroup, type Group, matchRoute, routeKey } from '../../shared/routes.ts';
import { type ApiHandler, loadApiHandler } from './functions.ts';

/** API Gateway's payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded|xml)|text\/)/i;

async function toApiEvent(req: IncomingMessage, body: Buffer): Promise<ApiEvent> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = (req.method ?? 'GET').toUpperCase();
  const match = matchRoute(method, url.pathname);
  // Built with Object.fromEntries, as API Gateway's JSON would be: a `__proto__` parameter is an
  // own property (and refused as unknown), not the object's prototype.
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(req.headersDistinct).flatMap(([name, value]) =>
      value && name !== 'cookie' ? [[name, value.join(',')]] : [],
    ),
  );
  const queryValues = new Map<string, string>();
  for (const [name, value] of url.searchParams) {
    const before = queryValues.get(name);
    queryValues.set(name, before === undefined ? value : `${before},${value}`);
  }
  const query: Record<string, string> = Object.fromEntries(queryValues);
  const isText = body.length === 0 || TEXT_TYPES.test(headers['content-type'] ?? 'application/json');
  const now = new Date();
  const key = match ? routeKey(match.route) : '$default';
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(req.headers.cookie && { cookies: req.headers.cookie.split(/;\s*/) }),
    headers,
    ...(url.searchParams.size > 0 && { queryStringParameters: query }),
    ...(match && Object.keys(match.pathParameters).length > 0 && { pathParameters: match.pathParameters }),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: key,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 && { body: isText ? body.toString('utf8') : body.toString('base64') }),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function lambdaContext(group: Group): Context {
  const deadline = Date.now() + 10_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:local-${group}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/local-${group}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function createApiServer(): Server {
  const loaded = new Map<Group, Promise<ApiHandler>>();
  const handlerOf = (group: Group) => {
    let handler = loaded.get(group);
    if (!handler) {
      handler = loadApiHandler(group);
      loaded.set(group, handler);
    }
    return handler;
  };

  return createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      if (!body) {
        res
          .writeHead(413, { 'Content-Type': 'application/json' })
          .end('{"message":"Request Entity Too Large"}');
        return;
      }
      const event = await toApiEvent(req, body);
      const group = matchRoute(event.requestContext.http.method, event.rawPath)?.route.group ?? fallbackGroup;
      const result: ApiResult = await (await handlerOf(group))(event, lambdaContext(group));
      const payload =
        result.body === undefined
          ? undefined
          : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
      res.writeHead(result.statusCode ?? 200, {
        ...(result.headers as Record<string, string>),
        ...(result.cookies && { 'Set-Cookie': result.cookies }),
        ...(payload && { 'Content-Length': payload.length }),
      });
      res.end(payload);
    } catch (error) {
      // What API Gateway answers when the integration fails.
      console.error(JSON.stringify({ level: 'error', message: 'handler crashed', error: String(error) }));
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end('{"message":"Internal Server Error"}');
    }
  });
}

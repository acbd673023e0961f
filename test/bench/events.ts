/**
 * What a cold Lambda receives: an HTTP API (payload 2.0) event and a context, shaped like the
 * ones API Gateway and the local runtime (`infra/local/http-server.ts`) produce, so the first
 * invoke runs the real middleware stack and route handler.
 */

import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { matchRoute, routeKey } from '../../shared/routes.ts';

export interface RequestSpec {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}

export function apiGatewayEvent(request: RequestSpec): APIGatewayProxyEventV2 {
  const match = matchRoute(request.method, request.path);
  const key = match ? routeKey(match.route) : '$default';
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const headers: Record<string, string> = {
    host: 'api.example.com',
    'user-agent': 'pix-bench',
    ...(body !== undefined && { 'content-type': 'application/json' }),
    ...request.headers,
  };
  const now = new Date();
  return {
    version: '2.0',
    routeKey: key,
    rawPath: request.path,
    rawQueryString: '',
    headers,
    ...(match && Object.keys(match.pathParameters).length > 0 && { pathParameters: match.pathParameters }),
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: {
        method: request.method,
        path: request.path,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'pix-bench',
      },
      requestId: randomUUID(),
      routeKey: key,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body !== undefined && { body }),
    isBase64Encoded: false,
  };
}

export function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + 10_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Role } from '../domain/auth.ts';
import type { Mode as KeyMode } from '../domain/scope.ts';
import type { RouteDefinition } from '../routes.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** A merchant authenticated by API key: every read and write is scoped to account + mode. */
export interface KeyPrincipal {
  kind: 'apikey';
  accountId: string;
  mode: KeyMode;
  keyId: string;
  fingerprint: string;
}

/** A dashboard user authenticated by session token, acting for one account. */
export interface UserPrincipal {
  kind: 'user';
  accountId: string;
  userId: string;
  role: Role;
  jti: string;
  exp: number;
}

export interface ApiRequest<P = KeyPrincipal | UserPrincipal | undefined> {
  route: RouteDefinition;
  requestId: string;
  principal: P;
  /** Parsed JSON body (`undefined` when none was sent). */
  body: unknown;
  query: Record<string, string>;
  pathParameters: Record<string, string>;
  headers: Record<string, string>;
  /** Where this service is reached (`https://…`), for URLs in responses. */
  baseUrl: string;
  /** The client's IP address as API Gateway saw it (the login's per-source limit). */
  sourceIp: string;
}

export interface ApiResponse {
  status: number;
  /** Serialized as JSON. */
  body?: unknown;
  /** A non-JSON body (HTML page, PNG image, JWS), sent as is. */
  raw?: { contentType: string; body: string | Buffer };
  headers?: Record<string, string>;
}

export type RouteHandler<P = never> = (request: ApiRequest<P>) => Promise<ApiResponse>;

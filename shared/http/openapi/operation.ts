/**
 * What the OpenAPI document says about one route, beside the manifest's method, path and auth:
 * the request schemas (the very valibot schemas the handler parses with), every success
 * response's schema and the `error.code`s of each error status. One file per route group
 * (`shared/http/openapi/<group>.ts`) holds its operations as `Operations<'group'>`, so a route
 * added to the manifest without its description is a compile error naming the route id.
 */

import type * as v from 'valibot';
import type { Group, RouteIdOf } from '../../routes.ts';
import type { ErrorStatus } from '../errors.ts';

export type Schema = v.GenericSchema;

/** A JSON body, described by a valibot schema (objects strict: a field not declared is a contract break). */
interface JsonResponse {
  readonly description: string;
  readonly schema: Schema;
  readonly example?: unknown;
  /** Response headers beyond the ones every response carries (`X-Request-Id`). */
  readonly headers?: readonly ResponseHeader[];
}

/** A body that is not JSON (an HTML page, an image, a JWS): its content type only. */
interface RawResponse {
  readonly description: string;
  readonly contentType: string;
  /** Bytes rather than text (an image). */
  readonly binary?: boolean;
  readonly headers?: readonly ResponseHeader[];
}

/** No body (`204`). */
interface EmptyResponse {
  readonly description: string;
  readonly empty: true;
}

export type SuccessResponse = JsonResponse | RawResponse | EmptyResponse;

export type ResponseHeader = 'Cache-Control' | 'Idempotent-Replayed' | 'Content-Security-Policy';

export interface Operation {
  readonly summary: string;
  readonly description?: string;
  /** The query string's schema (a strict object: an unknown parameter is 400). */
  readonly query?: Schema;
  /** The JSON body's schema (whether a body is required is the manifest's `body`, `shared/routes.ts`). */
  readonly body?: Schema;
  /** A request body that works as sent: without one, reference pages fill every field with `""`. */
  readonly bodyExample?: unknown;
  /** A browser (`Accept: text/html`) gets its 404 as an HTML page; other clients the envelope. */
  readonly notFoundPage?: true;
  /** Routes that take the `Idempotency-Key` header. */
  readonly idempotencyKeyHeader?: true;
  readonly responses: Readonly<Partial<Record<200 | 201 | 202 | 204, SuccessResponse>>>;
  /**
   * The `error.code`s of each error status this route itself decides. The generator adds what
   * every route of its kind can answer: 401/429 for keys, 401 for tokens, 400 for a body or
   * query, 404 for a path parameter, 500.
   */
  readonly errors?: Readonly<Partial<Record<ErrorStatus, readonly string[]>>>;
}

export type Operations<G extends Group> = Readonly<Record<RouteIdOf<G>, Operation>>;

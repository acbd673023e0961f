/**
 * The one error family of the API. Handlers and middlewares throw these; the error middleware
 * renders the spec's envelope. Only errors below 500 show their message to the client.
 */

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'api_error';

export interface ErrorDetail {
  param: string;
  message: string;
}

export interface HttpErrorOptions {
  param?: string;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
}

export class HttpError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly param: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    type: ErrorType,
    code: string,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.type = type;
    this.code = code;
    this.param = options.param;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export const badRequest = (message: string, options: HttpErrorOptions & { code?: string } = {}) =>
  new HttpError(400, 'invalid_request_error', options.code ?? 'invalid_request', message, options);

export const unauthorized = (message = 'Missing or invalid credentials.') =>
  new HttpError(401, 'authentication_error', 'unauthorized', message);

export const forbidden = (code: string, message: string) =>
  new HttpError(403, 'permission_error', code, message);

export const notFound = (message = 'No such resource.') =>
  new HttpError(404, 'not_found_error', 'not_found', message);

export const conflict = (code: string, message: string) =>
  new HttpError(409, 'conflict_error', code, message);

export const unprocessable = (message: string, options: HttpErrorOptions = {}) =>
  new HttpError(422, 'invalid_request_error', 'unprocessable_entity', message, options);

export const rateLimited = (retryAfterSeconds: number, headers: Record<string, string>) =>
  new HttpError(
    429,
    'rate_limit_error',
    'rate_limited',
    'Too many requests: retry after the window resets.',
    {
      headers: { ...headers, 'Retry-After': String(retryAfterSeconds) },
    },
  );

export const serviceUnavailable = (
  message = 'The upstream service is unavailable; retry with the same Idempotency-Key.',
) => new HttpError(503, 'api_error', 'service_unavailable', message);

export interface ErrorEnvelope {
  error: { type: ErrorType; code: string; message: string; param?: string; details?: ErrorDetail[] };
  request_id: string;
}

/** Renders any thrown value as the spec's envelope; internals of unexpected errors never leak. */
export function toErrorEnvelope(
  error: unknown,
  requestId: string,
): { status: number; body: ErrorEnvelope; headers: Record<string, string> } {
  if (error instanceof HttpError && error.status < 500) {
    return {
      status: error.status,
      headers: error.headers,
      body: {
        error: {
          type: error.type,
          code: error.code,
          message: error.message,
          ...(error.param !== undefined && { param: error.param }),
          ...(error.details !== undefined && { details: error.details }),
        },
        request_id: requestId,
      },
    };
  }
  if (error instanceof HttpError) {
    return {
      status: error.status,
      headers: error.headers,
      body: { error: { type: 'api_error', code: error.code, message: error.message }, request_id: requestId },
    };
  }
  return {
    status: 500,
    headers: {},
    body: {
      error: { type: 'api_error', code: 'internal_error', message: 'An unexpected error occurred.' },
      request_id: requestId,
    },
  };
}

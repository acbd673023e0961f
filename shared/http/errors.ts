/**
 * The edge of the error family. Use cases and domain rules throw `DomainError`s
 * (`shared/domain/errors.ts`); the edge's own failures (authentication, rate limit) are
 * `HttpError`s. The error middleware renders both as the spec's envelope through
 * `toErrorEnvelope`; only errors below 500 show their message to the client.
 */

import {
  Conflict,
  DomainError,
  detailSentences,
  type ErrorDetail,
  IdempotencyConflict,
  InvalidInput,
  NotFound,
  PermissionDenied,
  ProviderUnavailable,
  RetryLater,
  StorageUnavailable,
  sentence,
  Unauthenticated,
  Unprocessable,
} from '../domain/errors.ts';

type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'api_error';

/** The statuses an error envelope is sent with, and the envelope `type` each one has. */
export const ERROR_TYPES = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
} as const satisfies Record<number, ErrorType>;
export type ErrorStatus = keyof typeof ERROR_TYPES;

interface HttpErrorOptions {
  param?: string;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
}

export class HttpError extends Error {
  readonly status: ErrorStatus;
  /** The envelope type, which the status decides (`ERROR_TYPES`). */
  readonly type: ErrorType;
  readonly code: string;
  readonly param: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(status: ErrorStatus, code: string, message: string, options: HttpErrorOptions = {}) {
    super(sentence(message));
    this.name = 'HttpError';
    this.status = status;
    this.type = ERROR_TYPES[status];
    this.code = code;
    this.param = options.param;
    this.details = detailSentences(options.details);
    this.headers = options.headers ?? {};
  }
}

export const unauthorized = (message = 'Missing or invalid credentials.') =>
  new HttpError(401, 'unauthorized', message);

export const rateLimited = (
  retryAfterSeconds: number,
  headers: Record<string, string>,
  message = 'Too many requests: retry after the window resets.',
) =>
  new HttpError(429, 'rate_limited', message, {
    headers: { ...headers, 'Retry-After': String(retryAfterSeconds) },
  });

/** Each domain error's HTTP status (its envelope type follows from it): the only place they are decided. */
const DOMAIN_ERRORS: [abstract new (...args: never[]) => DomainError, ErrorStatus][] = [
  [InvalidInput, 400],
  [Unauthenticated, 401],
  [NotFound, 404],
  [PermissionDenied, 403],
  [IdempotencyConflict, 409],
  [Conflict, 409],
  [Unprocessable, 422],
  [RetryLater, 429],
  [ProviderUnavailable, 503],
  [StorageUnavailable, 503],
];

/** A domain error as the HTTP error it is shown as. */
function toHttpError(error: DomainError): HttpError {
  const [, status] = DOMAIN_ERRORS.find(([kind]) => error instanceof kind) ?? [DomainError, 500];
  return new HttpError(status, error.code, error.message, {
    ...(error.param !== undefined && { param: error.param }),
    ...(error.details !== undefined && { details: error.details }),
    ...((error instanceof RetryLater || error instanceof ProviderUnavailable) &&
      error.retryAfterSeconds !== undefined && {
        headers: { 'Retry-After': String(error.retryAfterSeconds) },
      }),
  });
}

interface ErrorEnvelope {
  error: { type: ErrorType; code: string; message: string; param?: string; details?: ErrorDetail[] };
  request_id: string;
}

/** Renders any thrown value as the spec's envelope; internals of unexpected errors never leak. */
export function toErrorEnvelope(
  thrown: unknown,
  requestId: string,
): { status: number; body: ErrorEnvelope; headers: Record<string, string> } {
  const error = thrown instanceof DomainError ? toHttpError(thrown) : thrown;
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

/**
 * Typed errors, one class per `error.type` of the service's envelope (as stripe-node does), so
 * callers branch with `instanceof` and read `code`, `param` and `requestId`.
 */

/** The `error.type` values of the envelope (Part 1, "Errors"). */
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

export interface PixErrorFields {
  message: string;
  /** The envelope's `error.type`; `connection_error` when no answer came back. */
  type: ErrorType | 'connection_error';
  /** The envelope's stable machine code, e.g. `idempotency_key_reused`. */
  code: string;
  param?: string | undefined;
  details?: ErrorDetail[] | undefined;
  requestId?: string | undefined;
  /** HTTP status; undefined for a connection error. */
  statusCode?: number | undefined;
  headers?: Headers | undefined;
  cause?: unknown;
}

export class PixError extends Error {
  readonly type: PixErrorFields['type'];
  readonly code: string;
  readonly param: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  readonly requestId: string | undefined;
  readonly statusCode: number | undefined;
  readonly headers: Headers | undefined;

  constructor(fields: PixErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = new.target.name;
    this.type = fields.type;
    this.code = fields.code;
    this.param = fields.param;
    this.details = fields.details;
    this.requestId = fields.requestId;
    this.statusCode = fields.statusCode;
    this.headers = fields.headers;
  }
}

/** 400 (and 422): the request is malformed or breaks a business rule; do not retry it unchanged. */
export class InvalidRequestError extends PixError {}
/** 401: missing, revoked or rotated key, or an expired dashboard token. */
export class AuthenticationError extends PixError {}
/** 403: a role below OWNER/ADMIN, or the fraud/velocity guard (`fraud.*`). */
export class PermissionError extends PixError {}
/** 404: absent, or another account's. */
export class NotFoundError extends PixError {}
/** 409: an idempotency key reused with another body, or evidence not uploaded yet. */
export class ConflictError extends PixError {}
/** 429: the key's per-minute limit; `retryAfterSeconds` is when the window resets. */
export class RateLimitError extends PixError {
  get retryAfterSeconds(): number | undefined {
    const value = Number(this.headers?.get('retry-after'));
    return Number.isFinite(value) ? value : undefined;
  }
}
/** 5xx: the service or its acquirer failed; a create is safe to retry with the same idempotency key. */
export class ApiError extends PixError {}
/** No HTTP answer: refused, reset or timed out. */
export class ConnectionError extends PixError {}
/** The storage refused an evidence upload (PUT to the presigned URL). */
export class EvidenceUploadError extends PixError {}

const CLASS_OF_TYPE: Record<ErrorType, typeof PixError> = {
  invalid_request_error: InvalidRequestError,
  authentication_error: AuthenticationError,
  permission_error: PermissionError,
  not_found_error: NotFoundError,
  conflict_error: ConflictError,
  rate_limit_error: RateLimitError,
  api_error: ApiError,
};

/** For an answer without a known envelope (a proxy's HTML, say): the class its status implies. */
function classOfStatus(status: number): typeof PixError {
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 429) return RateLimitError;
  if (status >= 500) return ApiError;
  return InvalidRequestError;
}

interface Envelope {
  error?: { type?: unknown; code?: unknown; message?: unknown; param?: unknown; details?: unknown };
  request_id?: unknown;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The typed error of a non-2xx answer, from its envelope (`body` is the parsed JSON, if any). */
export function errorFromResponse(status: number, body: unknown, headers: Headers): PixError {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as Envelope;
  const error = envelope.error ?? {};
  const type = text(error.type);
  const ErrorClass = type && type in CLASS_OF_TYPE ? CLASS_OF_TYPE[type as ErrorType] : classOfStatus(status);
  return new ErrorClass({
    message: text(error.message) ?? `HTTP ${status}`,
    type: (type as ErrorType | undefined) ?? (status >= 500 ? 'api_error' : 'invalid_request_error'),
    code: text(error.code) ?? `http_${status}`,
    param: text(error.param),
    details: Array.isArray(error.details) ? (error.details as ErrorDetail[]) : undefined,
    requestId: text(envelope.request_id) ?? headers.get('x-request-id') ?? undefined,
    statusCode: status,
    headers,
  });
}

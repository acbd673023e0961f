/**
 * Typed errors, one class per `error.type` of the service's envelope (as stripe-node does), so
 * callers branch with `instanceof` and read `code`, `param` and `requestId`.
 */

import type { components } from './openapi.ts';

type Envelope = components['schemas']['ErrorEnvelope'];

/**
 * The `error.type` values of the envelope, from the OpenAPI document: a type added there fails
 * to compile until it has its class below.
 */
export type ErrorType = Envelope['error']['type'];

export type ErrorDetail = components['schemas']['ErrorDetail'];

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
/** `Retry-After` in milliseconds (delta-seconds or an HTTP date), undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * 429: the key's per-minute limit or the dashboard's failed-login limit (`rate_limited`), or a refund that lost the account's balance to
 * concurrent ones (`lock_timeout`); nothing was done. `retryAfterSeconds` is when to send it again
 * (undefined without the header).
 */
export class RateLimitError extends PixError {
  get retryAfterSeconds(): number | undefined {
    const ms = parseRetryAfter(this.headers?.get('retry-after') ?? null);
    return ms === undefined ? undefined : ms / 1000;
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

/** For an answer without a known envelope (a proxy's HTML, say): the type its status implies. */
function typeOfStatus(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 409) return 'conflict_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** Fields read defensively: an answer from a proxy need not be the envelope. */
type Loose<T> = { [K in keyof T]?: unknown };

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The typed error of a non-2xx answer, from its envelope (`body` is the parsed JSON, if any). */
export function errorFromResponse(status: number, body: unknown, headers: Headers): PixError {
  const envelope = (isObject(body) ? body : {}) as Loose<Envelope>;
  const error = (isObject(envelope.error) ? envelope.error : {}) as Loose<Envelope['error']>;
  const declared = text(error.type);
  const type =
    declared !== undefined && declared in CLASS_OF_TYPE ? (declared as ErrorType) : typeOfStatus(status);
  return new CLASS_OF_TYPE[type]({
    message: text(error.message) ?? `HTTP ${status}`,
    type,
    code: text(error.code) ?? `http_${status}`,
    param: text(error.param),
    details: Array.isArray(error.details) ? (error.details as ErrorDetail[]) : undefined,
    requestId: text(envelope.request_id) ?? headers.get('x-request-id') ?? undefined,
    statusCode: status,
    headers,
  });
}

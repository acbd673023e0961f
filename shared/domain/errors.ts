/**
 * The errors a use case or a domain rule raises, in the domain's words. They know nothing of
 * HTTP: `shared/http/errors.ts` maps each class to its status and the spec's envelope in one
 * table. `code` is the spec's machine-readable code; `param`/`details` name the fields at fault.
 */

export interface ErrorDetail {
  /** The field at fault; `body` or `query` for a rule over the whole of it ("send at least one of …"). */
  param: string;
  message: string;
}

/**
 * Every error message the service writes is a sentence ending in a period, as Stripe's are: the
 * schemas' short messages ("Must be greater than 0") get one here, in the one place each error
 * is made, so `message` and every `details` entry read alike. A question (a "did you mean …?")
 * keeps its question mark.
 */
export const sentence = (text: string): string => (/[.?!]$/.test(text) ? text : `${text}.`);

/** `details` with each message a sentence (`sentence`). */
export const detailSentences = (details: ErrorDetail[] | undefined): ErrorDetail[] | undefined =>
  details?.map((detail) => ({ ...detail, message: sentence(detail.message) }));

interface ErrorOptions {
  param?: string;
  details?: ErrorDetail[];
  /** What the service met underneath (an acquirer's answer): logged, never shown to the client. */
  cause?: unknown;
}

export abstract class DomainError extends Error {
  readonly code: string;
  readonly param: string | undefined;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: string, message: string, options: ErrorOptions = {}) {
    super(sentence(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.param = options.param;
    this.details = detailSentences(options.details);
  }
}

/**
 * The request is malformed or breaks a rule about its own fields (400). A rule about one field
 * (`param`) lists it in `details` too, as a schema failure does, so a client reads every 400 the
 * same way: there without the message's "Invalid <param>: " lead, which the entry's `param` says.
 */
export class InvalidInput extends DomainError {
  constructor(message: string, options: ErrorOptions & { code?: string } = {}) {
    const { param, details } = options;
    const lead = `Invalid ${param}: `;
    const detail = message.startsWith(lead) ? message.slice(lead.length) : message;
    super(options.code ?? 'invalid_request', message, {
      ...options,
      ...(details === undefined && param !== undefined && { details: [{ param, message: detail }] }),
    });
  }

  /** The same error with other `details` (and `message`): a parser adding what it knows. */
  withDetails(details: ErrorDetail[], message = this.message): InvalidInput {
    return new InvalidInput(message, {
      code: this.code,
      ...(this.param !== undefined && { param: this.param }),
      details,
    });
  }
}

/** Absent, or another tenant's: indistinguishable on purpose (404). */
export class NotFound extends DomainError {
  constructor(message = 'No such resource.') {
    super('not_found', message);
  }
}

/** The caller may not do this (403), e.g. a role below OWNER/ADMIN managing keys. */
export class PermissionDenied extends DomainError {}

/** The fraud/velocity guard refused a new charge (403 `fraud.*`). */
export class VelocityExceeded extends PermissionDenied {}

/** An idempotency key replayed with another body (409); `param` names where the key was sent. */
export class IdempotencyConflict extends DomainError {
  constructor(message: string, param: string) {
    super('idempotency_key_reused', message, { param });
  }
}

/** The resource is not in the state the request needs (409), e.g. evidence not uploaded yet. */
export class Conflict extends DomainError {
  constructor(code: string, message: string, options: ErrorOptions = {}) {
    super(code, message, options);
  }
}

/** Who is asking could not be verified (401), e.g. a wrong e-mail or password at login. */
export class Unauthenticated extends DomainError {
  constructor(message: string) {
    super('unauthorized', message);
  }
}

/** Refused for now, not for good (429): a retry after `retryAfterSeconds` may succeed. */
export abstract class RetryLater extends DomainError {
  readonly retryAfterSeconds: number;

  constructor(code: string, message: string, retryAfterSeconds: number) {
    super(code, message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * Too many concurrent writers of the same money (429 `lock_timeout`, as Stripe names it):
 * the use case lost its race again and again for as long as it may try, and wrote nothing. A
 * retry after `retryAfterSeconds`, with the same idempotency key, is safe.
 */
export class Contended extends RetryLater {
  constructor(message: string, retryAfterSeconds = 1) {
    super('lock_timeout', message, retryAfterSeconds);
  }
}

/** Too many attempts of something limited, e.g. failed logins of one address (429 `rate_limited`). */
export class TooManyAttempts extends RetryLater {
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message, retryAfterSeconds);
  }
}

/** Document storage (the evidence bucket) did not answer; nothing was written (503). */
export class StorageUnavailable extends DomainError {
  constructor(message = 'Document storage is unavailable; evidence upload is suspended. Retry later.') {
    super('service_unavailable', message);
  }
}

/** Well-formed, but the service cannot do it (422), e.g. no acquirer for live mode. */
export class Unprocessable extends DomainError {
  constructor(message: string, options: ErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'unprocessable_entity', message, options);
  }
}

/** The acquirer did not answer; nothing was stored, a retry with the same key is safe (503). */
export class ProviderUnavailable extends DomainError {
  /** When the acquirer said when to come back (its `Retry-After`), passed on to the merchant. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    message = 'The upstream service is unavailable; retry with the same Idempotency-Key.',
    /** The acquirer's own error (an outage, or credentials it refused), for the request log. */
    cause?: unknown,
    retryAfterSeconds?: number,
  ) {
    super('service_unavailable', message, { cause });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * How API Pix failures become the port's typed errors. Every non-2xx answer goes through ONE
 * factory, `fromResponse()`, tested as a table (test/unit/api-pix-errors.test.ts); a request
 * that got no answer goes through `fromNetworkError()`.
 *
 * | Answer | Error |
 * |---|---|
 * | no answer, timeout, 5xx, 429, 408, 425, 3xx (no answer to the request itself) | `ProviderUnavailableError` (retried where idempotent, no sooner than its `Retry-After`) |
 * | 403 on `GET /pix` filtered by payer (the PSP does not offer the filter) | `ProviderQueryNotOfferedError` |
 * | 400, 403, 404, 405 on `GET /infracoes` (not API Pix: a PSP may not offer it) | `ProviderQueryNotOfferedError` |
 * | 401, 403 (credentials, scopes) | `ProviderRequestError` |
 * | 404 on a read or a cancel | `ProviderNotFoundError` |
 * | other 4xx on `PUT/PATCH /cob` | `ProviderRejectedError` (the charge fails) |
 * | other 4xx on `PUT …/devolucao/{id}` | `DevolutionRefusedError` (the refund fails) |
 * | any other 4xx | `ProviderRequestError` |
 *
 * The code is the problem's type without its URI prefix (`CobOperacaoInvalida`), an OAuth2
 * error's `error` (`invalid_client`), or `http_<status>` when the body is neither.
 */

import {
  DevolutionRefusedError,
  ProviderNotFoundError,
  ProviderQueryNotOfferedError,
  ProviderRejectedError,
  ProviderRequestError,
  ProviderUnavailableError,
} from '../provider.ts';
import type { Problema } from './wire.ts';

export type ApiPixOperation =
  | 'token'
  | 'createCob'
  | 'getCob'
  | 'cancelCob'
  | 'getPix'
  | 'listPix'
  /** `GET /pix` filtered by the payer's document (the payer lock): a filter not every PSP offers. */
  | 'listPixByPayer'
  | 'requestDevolution'
  | 'getDevolution'
  | 'listInfractions'
  | 'registerWebhook';

/** 404 means "not there", not a failed call: a read or cancel of what the PSP does not hold. */
const NOT_FOUND_MEANS_ABSENT: ReadonlySet<ApiPixOperation> = new Set([
  'getCob',
  'cancelCob',
  'getPix',
  'getDevolution',
]);

/** The most of a PSP's problem text an error message keeps. */
const MAX_TEXT = 500;

/** What the body says, whichever of the two error formats (RFC 7807, RFC 6749) it is in. */
function describe(status: number, body: unknown): { code: string; text: string; properties: string[] } {
  if (body !== null && typeof body === 'object') {
    const problem = body as Partial<Problema> & { error?: unknown; error_description?: unknown };
    if (typeof problem.type === 'string') {
      const violations = (problem.violacoes ?? [])
        .map((v) => [v.propriedade, v.razao].filter(Boolean).join(': '))
        .filter(Boolean);
      const text = [problem.title, problem.detail, ...violations].filter(Boolean).join('; ');
      const properties = (problem.violacoes ?? []).flatMap((v) => v.propriedade ?? []);
      return {
        code: problem.type.slice(problem.type.lastIndexOf('/') + 1) || `http_${status}`,
        text,
        properties,
      };
    }
    if (typeof problem.error === 'string') {
      const text = typeof problem.error_description === 'string' ? problem.error_description : problem.error;
      return { code: problem.error, text, properties: [] };
    }
  }
  return { code: `http_${status}`, text: `HTTP ${status}`, properties: [] };
}

/**
 * The typed error for a non-2xx answer of `operation` (the body parsed as JSON, or the raw text);
 * `retryAfterMs`, from the answer's `Retry-After`, rides on an unavailable error.
 */
export function fromResponse(
  operation: ApiPixOperation,
  status: number,
  body: unknown,
  retryAfterMs?: number,
): Error {
  const { code, text, properties } = describe(status, body);
  // A problem's text has no length limit in the standard: it ends up in a charge's or a refund's
  // failure reason, which must fit in an item.
  const shown = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
  const message = `API Pix ${operation} answered ${status}: ${shown}`;
  // Overloaded, timed out, too early or redirected: nothing said about the request itself.
  if (status >= 500 || status === 429 || status === 408 || status === 425 || (status >= 300 && status < 400))
    return new ProviderUnavailableError(message, { retryAfterMs });
  if (status === 403 && operation === 'listPixByPayer')
    return new ProviderQueryNotOfferedError(message, code);
  // The infraction feed is not API Pix: a PSP without it may refuse the path as it likes (no alarm).
  if (operation === 'listInfractions' && [400, 403, 404, 405].includes(status))
    return new ProviderQueryNotOfferedError(message, code);
  if (status === 401 || status === 403) return new ProviderRequestError(message, code);
  if (status === 404 && NOT_FOUND_MEANS_ABSENT.has(operation))
    return new ProviderNotFoundError(message, code);
  if (operation === 'createCob' || operation === 'cancelCob') return new ProviderRejectedError(message, code);
  if (operation === 'requestDevolution') return new DevolutionRefusedError(message, code, properties);
  return new ProviderRequestError(message, code);
}

/**
 * An answer's `Retry-After` (RFC 9110 §10.2.3: seconds, or an HTTP date) as milliseconds from
 * `now`; undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date starts with its day's name (`Tue, 24 Nov 2026 12:00:30 GMT`); Date.parse alone
  // would also read `-5` or `1.5` as dates.
  const at = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Node's codes for a server certificate that does not chain to the configured CA, or names another host. */
const CERTIFICATE_REFUSED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The request got no answer: refused, reset, timed out, or the TLS handshake failed. */
export function fromNetworkError(operation: ApiPixOperation, error: unknown): ProviderUnavailableError {
  // node's request rejects with an AbortError whose cause is the signal's TimeoutError.
  const timedOut = [error, (error as { cause?: unknown } | undefined)?.cause].some(
    (e) => e instanceof Error && e.name === 'TimeoutError',
  );
  const reason = timedOut ? 'timed out' : `failed: ${error instanceof Error ? error.message : String(error)}`;
  return new ProviderUnavailableError(`API Pix ${operation} ${reason}`, { cause: error });
}

/**
 * Worth another attempt: the acquirer was unavailable, but not because its certificate was
 * refused (that is configuration, and would fail the same way again).
 */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof ProviderUnavailableError)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return !(typeof code === 'string' && CERTIFICATE_REFUSED.has(code));
}

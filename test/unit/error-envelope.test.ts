import { describe, expect, it } from 'vitest';
import {
  Conflict,
  Contended,
  type DomainError,
  IdempotencyConflict,
  InvalidInput,
  NotFound,
  PermissionDenied,
  ProviderUnavailable,
  StorageUnavailable,
  TooManyAttempts,
  Unauthenticated,
  Unprocessable,
  VelocityExceeded,
} from '../../shared/domain/errors.ts';
import { toErrorEnvelope } from '../../shared/http/errors.ts';

describe('toErrorEnvelope: each domain error as the spec envelope', () => {
  it.each<[DomainError, number, string, string]>([
    [new InvalidInput('Bad.', { param: 'amount' }), 400, 'invalid_request_error', 'invalid_request'],
    [new Unauthenticated('Invalid e-mail or password.'), 401, 'authentication_error', 'unauthorized'],
    [new PermissionDenied('forbidden', 'No.'), 403, 'permission_error', 'forbidden'],
    [new VelocityExceeded('fraud.velocity', 'Slow down.'), 403, 'permission_error', 'fraud.velocity'],
    [new NotFound(), 404, 'not_found_error', 'not_found'],
    [new IdempotencyConflict('Reused.', 'Idempotency-Key'), 409, 'conflict_error', 'idempotency_key_reused'],
    [new Conflict('evidence_not_uploaded', 'Not yet.'), 409, 'conflict_error', 'evidence_not_uploaded'],
    [new Unprocessable('No acquirer.'), 422, 'invalid_request_error', 'unprocessable_entity'],
    [new Contended('Busy.', 2), 429, 'rate_limit_error', 'lock_timeout'],
    [new TooManyAttempts('Too many failed logins.', 30), 429, 'rate_limit_error', 'rate_limited'],
    [new ProviderUnavailable(), 503, 'api_error', 'service_unavailable'],
    [new StorageUnavailable(), 503, 'api_error', 'service_unavailable'],
  ])('%s → %i %s %s', (error, status, type, code) => {
    const rendered = toErrorEnvelope(error, 'req_1');
    expect(rendered.status).toBe(status);
    expect(rendered.body.error).toMatchObject({ type, code });
    expect(rendered.body.request_id).toBe('req_1');
  });

  it('tells when to retry a 429, and only a 429', () => {
    expect(toErrorEnvelope(new Contended('Busy.', 2), 'r').headers).toEqual({ 'Retry-After': '2' });
    expect(toErrorEnvelope(new TooManyAttempts('Later.', 30), 'r').headers).toEqual({ 'Retry-After': '30' });
    expect(toErrorEnvelope(new NotFound(), 'r').headers).toEqual({});
  });

  it('shows a client error its message and param, and hides an unexpected error', () => {
    expect(toErrorEnvelope(new InvalidInput('Bad.', { param: 'amount' }), 'r').body.error).toEqual({
      type: 'invalid_request_error',
      code: 'invalid_request',
      message: 'Bad.',
      param: 'amount',
      details: [{ param: 'amount', message: 'Bad.' }],
    });
    expect(toErrorEnvelope(new Error('secret internals'), 'r')).toMatchObject({
      status: 500,
      body: {
        error: { type: 'api_error', code: 'internal_error', message: 'An unexpected error occurred.' },
      },
    });
  });
});

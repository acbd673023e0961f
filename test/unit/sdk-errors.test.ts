/** The SDK's error classes: one per `error.type` of the envelope, with its code, param and request id. */

import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  errorFromResponse,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PixError,
  RateLimitError,
} from '../../sdk/src/index.ts';

const headers = (values: Record<string, string> = {}) => new Headers(values);

describe('errorFromResponse', () => {
  it.each([
    [400, 'invalid_request_error', InvalidRequestError],
    [422, 'invalid_request_error', InvalidRequestError],
    [401, 'authentication_error', AuthenticationError],
    [403, 'permission_error', PermissionError],
    [404, 'not_found_error', NotFoundError],
    [409, 'conflict_error', ConflictError],
    [429, 'rate_limit_error', RateLimitError],
    [503, 'api_error', ApiError],
  ])('maps a %i %s to its class', (status, type, ErrorClass) => {
    const error = errorFromResponse(
      status,
      { error: { type, code: 'some_code', message: 'Why it failed.' }, request_id: 'req_abc' },
      headers(),
    );
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(PixError);
    expect(error).toMatchObject({
      name: ErrorClass.name,
      type,
      code: 'some_code',
      message: 'Why it failed.',
      requestId: 'req_abc',
      statusCode: status,
    });
  });

  it('keeps param and the validation details', () => {
    const details = [{ param: 'amount', message: 'Must be greater than 0' }];
    const error = errorFromResponse(
      400,
      {
        error: {
          type: 'invalid_request_error',
          code: 'invalid_amount',
          message: 'Bad',
          param: 'amount',
          details,
        },
        request_id: 'req_1',
      },
      headers(),
    );
    expect(error).toMatchObject({ code: 'invalid_amount', param: 'amount', details });
  });

  it('reads the type, not the status: a 403 fraud refusal and a 422 business rule', () => {
    const fraud = errorFromResponse(
      403,
      {
        error: { type: 'permission_error', code: 'fraud.customer_velocity_exceeded', message: 'x' },
        request_id: 'r',
      },
      headers(),
    );
    expect(fraud).toBeInstanceOf(PermissionError);
    expect(fraud.code).toBe('fraud.customer_velocity_exceeded');
  });

  it('falls back on the status and the X-Request-Id header for an answer without the envelope', () => {
    const error = errorFromResponse(502, undefined, headers({ 'x-request-id': 'req_from_header' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'http_502', requestId: 'req_from_header', type: 'api_error' });
    expect(errorFromResponse(404, '<html>', headers())).toBeInstanceOf(NotFoundError);
    expect(errorFromResponse(418, {}, headers())).toBeInstanceOf(InvalidRequestError);
    const unknownType = errorFromResponse(
      409,
      { error: { type: 'teapot_error', code: 'brewing' } },
      headers(),
    );
    expect(unknownType).toBeInstanceOf(ConflictError);
    expect(unknownType).toMatchObject({ type: 'conflict_error', code: 'brewing' });
  });

  it("gives a 429's Retry-After in seconds", () => {
    const error = errorFromResponse(
      429,
      { error: { type: 'rate_limit_error', code: 'rate_limited', message: 'x' }, request_id: 'r' },
      headers({ 'retry-after': '17' }),
    );
    expect((error as RateLimitError).retryAfterSeconds).toBe(17);
    const without = errorFromResponse(
      429,
      { error: { type: 'rate_limit_error', code: 'rate_limited', message: 'x' }, request_id: 'r' },
      headers(),
    );
    expect((without as RateLimitError).retryAfterSeconds).toBeUndefined();
  });
});

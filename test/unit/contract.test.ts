import { describe, expect, it } from 'vitest';
import { contractViolation } from '../helpers/contract.ts';

const url = (path: string) => new URL(`http://127.0.0.1:3000${path}`);
const envelope = (code: string) =>
  JSON.stringify({
    error: { type: 'not_found_error', code, message: 'No such charge.' },
    request_id: 'req_1',
  });
const stats = { total: 1, PENDING: 0, PROCESSING: 0, DELIVERED: 1, FAILED: 0, CANCELLED: 0 };

describe('the contract check of the integration suite', () => {
  it('accepts a response the document describes', () => {
    expect(
      contractViolation('GET', url('/v1/webhooks/stats'), 200, 'application/json', JSON.stringify(stats)),
    ).toBeUndefined();
    expect(
      contractViolation('GET', url('/v1/charges/ch_x'), 404, 'application/json', envelope('not_found')),
    ).toBe(undefined);
  });

  it('rejects a field the document does not declare, naming the route', () => {
    const violation = contractViolation(
      'GET',
      url('/v1/webhooks/stats'),
      200,
      'application/json',
      JSON.stringify({ ...stats, secret: 'x' }),
    );
    expect(violation).toMatch(/getWebhookStats.*must NOT have additional properties/);
  });

  it('rejects an error code, a status or a content type the route does not declare', () => {
    expect(
      contractViolation('GET', url('/v1/charges/ch_x'), 404, 'application/json', envelope('gone')),
    ).toMatch(/must be equal to one of the allowed values/);
    expect(contractViolation('GET', url('/v1/charges/ch_x'), 409, 'application/json', envelope('x'))).toMatch(
      /getCharge has no response 409/,
    );
    expect(contractViolation('GET', url('/checkout/abc/qr.png'), 200, 'image/jpeg', '')).toMatch(
      /answered image\/jpeg, the document says image\/png/,
    );
  });
});

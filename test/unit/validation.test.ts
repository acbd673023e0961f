import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CreateChargeBody } from '../../shared/domain/charge-input.ts';
import { appealSchema, listMedCasesSchema } from '../../shared/domain/med-cases.ts';
import { CreatePaymentBody } from '../../shared/domain/payment-input.ts';
import { oneOf, parseInput } from '../../shared/domain/validation.ts';
import {
  CreateEndpointBody,
  DeliveriesQuery,
  UpdateEndpointBody,
} from '../../shared/domain/webhook-input.ts';

const failure = (schema: v.GenericSchema, input: unknown, where: 'body' | 'query' = 'body') => {
  try {
    parseInput(schema, input, where);
  } catch (error) {
    const { message, param, details } = error as { message: string; param?: string; details?: unknown };
    return { message, param, details };
  }
  throw new Error('parsed');
};

describe('parseInput', () => {
  it.each([
    ['payment_method', CreateChargeBody, { amount: 100 }],
    ['events', CreateEndpointBody, { url: 'https://example.com/hook' }],
    ['reason', appealSchema, {}],
    ['idempotencyKey', CreatePaymentBody, { amount: 100, paymentMethods: ['PIX'] }],
  ] as const)('says a missing %s is required', (field, schema, input) => {
    expect(failure(schema, input)).toEqual({
      message: `${field} is required.`,
      param: field,
      details: [{ param: field, message: `${field} is required.` }],
    });
  });

  it('names a missing nested field by its dot path, and lists every missing field', () => {
    const schema = v.strictObject({ a: v.string(), customer: v.strictObject({ name: v.string() }) });
    expect(failure(schema, { customer: {} })).toEqual({
      message: 'a is required.',
      param: 'a',
      details: [
        { param: 'a', message: 'a is required.' },
        { param: 'customer.name', message: 'customer.name is required.' },
      ],
    });
  });

  it('keeps the field-specific message for a present but invalid field, and Unknown parameter', () => {
    expect(failure(CreateChargeBody, { amount: 100, payment_method: 'boleto' }).message).toBe(
      'Invalid payment_method: Only pix is accepted.',
    );
    expect(failure(CreateChargeBody, { amount: 100, payment_method: 'pix', tip: 1 }).message).toBe(
      'Invalid tip: Unknown parameter.',
    );
  });

  it('blames no field when the body itself is not an object', () => {
    expect(failure(CreateChargeBody, null)).toEqual({
      message: 'The request body must be a JSON object.',
      param: undefined,
      details: undefined,
    });
  });

  it('names no field for a rule over the whole object: no param, details on the body', () => {
    expect(failure(UpdateEndpointBody, {})).toEqual({
      message: 'Send at least one of url, events, status.',
      param: undefined,
      details: [{ param: 'body', message: 'Send at least one of url, events, status.' }],
    });
  });

  it('lists the allowed values of an enum filter', () => {
    expect(failure(DeliveriesQuery, { status: 'delivered' }, 'query').message).toBe(
      'Invalid status: Must be one of PENDING, PROCESSING, DELIVERED, FAILED, CANCELLED.',
    );
    expect(failure(listMedCasesSchema, { type: 'pix' }, 'query').message).toBe(
      'Invalid type: Must be one of med, chargeback, dispute, fraud.',
    );
    expect(failure(v.object({ x: oneOf(['a', 'b']) }), { x: 'c' }).message).toBe(
      'Invalid x: Must be one of a, b.',
    );
  });
});

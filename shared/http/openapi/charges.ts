/** `charges` group: the public Charge (Part 1). */

import * as v from 'valibot';
import { CreateChargeBody, CreatePixChargeBody } from '../../domain/charge-input.ts';
import { ListChargesQuery } from '../../domain/charge-list-query.ts';
import { publicStatuses } from '../../domain/transaction-status.ts';
import { Amount, Currency, Metadata, Timestamp } from './common.ts';
import type { Operation, Operations } from './operation.ts';

export const Charge = v.pipe(
  v.strictObject({
    id: v.pipe(v.string(), v.startsWith('ch_')),
    object: v.literal('charge'),
    amount: Amount,
    currency: Currency,
    status: v.picklist(publicStatuses),
    payment_method: v.literal('pix'),
    customer: v.strictObject({ name: v.optional(v.string()), document: v.optional(v.string()) }),
    pix: v.strictObject({
      br_code: v.optional(v.string()),
      qr_code_url: v.optional(v.pipe(v.string(), v.url())),
      qr_code_base64: v.optional(v.string()),
      expires_at: Timestamp,
      txid: v.optional(v.string()),
    }),
    checkout_url: v.pipe(v.string(), v.url()),
    settlement: v.strictObject({ end_to_end_id: v.optional(v.string()) }),
    metadata: Metadata,
    expected_payer_tax_id: v.optional(v.string()),
    created_at: Timestamp,
  }),
  v.examples([
    {
      id: 'ch_0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      object: 'charge',
      amount: 1050,
      currency: 'BRL',
      status: 'pending',
      payment_method: 'pix',
      customer: {},
      pix: {
        br_code: '00020101021226…6304ABCD',
        qr_code_url: 'https://pay.example.com/checkout/0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/qr.png',
        expires_at: '2026-11-22T21:00:00.000Z',
        txid: 'b3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6',
      },
      checkout_url: 'https://pay.example.com/checkout/0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      settlement: {},
      metadata: { description: 'Pedido 42' },
      created_at: '2026-11-22T20:00:00.000Z',
    },
  ]),
);

/** What creating a charge can refuse, by either surface (`/v1/charges` or `/v1/payments`). */
export const chargeCreationErrors: Operation['errors'] = {
  400: ['invalid_amount'],
  403: ['fraud.customer_velocity_exceeded', 'fraud.account_velocity_exceeded'],
  409: ['idempotency_key_reused'],
  422: ['unprocessable_entity'],
  503: ['service_unavailable'],
};

const createOperation = (
  body: typeof CreateChargeBody,
  summary: string,
  bodyExample: Record<string, unknown>,
): Operation => ({
  summary,
  description:
    'Creates a Pix charge: the BR Code, its QR image and the hosted checkout URL in one response. Idempotent on `Idempotency-Key` (the same key and body replay the first response with `Idempotent-Replayed: true`; another body is 409). A charge of amount 1313 in test mode is refused by the sandbox acquirer (`status: failed`).',
  idempotencyKeyHeader: true,
  body,
  bodyExample,
  responses: {
    201: { description: 'The charge.', schema: Charge, headers: ['Idempotent-Replayed'] },
  },
  errors: chargeCreationErrors,
});

export const chargeOperations: Operations<'charges'> = {
  createCharge: createOperation(CreateChargeBody, 'Create a Pix charge', {
    amount: 1050,
    payment_method: 'pix',
    description: 'Pedido 42',
  }),
  createPixCharge: createOperation(CreatePixChargeBody, 'Create a Pix charge (payment method implied)', {
    amount: 1050,
    description: 'Pedido 42',
  }),
  listCharges: {
    summary: 'List charges',
    description:
      'Newest first, cursor pagination (`starting_after` = the previous `next_cursor`). `status=expired` includes charges past `expires_at` not yet recorded.',
    query: ListChargesQuery,
    responses: {
      200: {
        description: 'A page of charges.',
        schema: v.strictObject({
          object: v.literal('list'),
          data: v.array(Charge),
          has_more: v.boolean(),
          next_cursor: v.nullable(v.string()),
        }),
      },
    },
  },
  getCharge: {
    summary: 'Retrieve a charge',
    description: '`ch_<id>` or the raw id; another account’s (or mode’s) charge is 404.',
    responses: { 200: { description: 'The charge.', schema: Charge } },
  },
};

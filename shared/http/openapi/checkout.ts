/** `checkout` group: the payer's pages and the documents a payer's bank fetches (no auth). */

import * as v from 'valibot';
import { publicStatuses } from '../../domain/transaction-status.ts';
import { Amount, Currency, Timestamp } from './common.ts';
import type { Operations } from './operation.ts';

export const CheckoutStatus = v.strictObject({
  status: v.picklist(publicStatuses),
  amount: Amount,
  currency: Currency,
  expires_at: Timestamp,
});

/** The P-256 public key of the Pix location JWS. */
const Jwk = v.strictObject({
  kty: v.literal('EC'),
  crv: v.literal('P-256'),
  x: v.string(),
  y: v.string(),
  kid: v.string(),
  alg: v.literal('ES256'),
  use: v.literal('sig'),
});

export const checkoutOperations: Operations<'checkout'> = {
  getCheckoutPage: {
    summary: 'Hosted checkout page',
    description: 'HTML, mobile-first, strict CSP; addressed by the raw charge id (`checkout_url`).',
    notFoundPage: true,
    responses: {
      200: {
        description: 'The page.',
        contentType: 'text/html; charset=utf-8',
        headers: ['Cache-Control', 'Content-Security-Policy'],
      },
    },
  },
  getCheckoutStatus: {
    summary: 'Checkout status',
    description: 'What the checkout page polls.',
    responses: {
      200: { description: 'The charge’s public status.', schema: CheckoutStatus, headers: ['Cache-Control'] },
    },
  },
  getChargeQrCode: {
    summary: 'QR code image',
    description: 'A PNG encoding exactly `pix.br_code`.',
    responses: {
      200: {
        description: 'The QR image.',
        contentType: 'image/png',
        binary: true,
        headers: ['Cache-Control'],
      },
    },
  },
  getPixPayload: {
    summary: 'Pix location payload',
    description:
      'The BR Code’s location (API Pix `GET /{pixUrlAccessToken}`): the charge payload as a JWS signed with the key at `/.well-known/jwks.json`.',
    responses: {
      200: { description: 'The compact JWS.', contentType: 'application/jose', headers: ['Cache-Control'] },
    },
  },
  getPixSigningKeys: {
    summary: 'Pix location signing keys',
    responses: {
      200: {
        description: 'The JWKS.',
        schema: v.strictObject({ keys: v.array(Jwk) }),
        headers: ['Cache-Control'],
      },
    },
  },
};

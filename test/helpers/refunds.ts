/** Refund helpers for the integration tests. */

import { expect } from 'vitest';
import { api } from './http.ts';

/** A payment's refund as `GET /v1/payments/{id}/refunds` lists it (`undefined` if not there). */
export async function refundOf(
  apikey: string,
  paymentId: string,
  refundId: string,
): Promise<Record<string, any> | undefined> {
  const refunds = (await api(`/v1/payments/${paymentId}/refunds`, { apikey })).body.data as Record<
    string,
    any
  >[];
  return refunds.find((r) => r.id === refundId);
}

/**
 * Confirms a sandbox refund and returns it, REFUNDED. The runtime's scheduler may have confirmed it
 * first (the sandbox acquirer reports a devolution done after a while, which a loaded machine can
 * outlast): the confirm then answers 400 `refund_final`, and the refund is read back instead.
 */
export async function confirmedRefund(
  apikey: string,
  paymentId: string,
  refundId: string,
): Promise<Record<string, any>> {
  const confirmed = await api(`/v1/sandbox/refunds/${refundId}/confirm`, { apikey, method: 'POST' });
  if (confirmed.status === 200) return confirmed.body;
  expect(confirmed.body.error?.code).toBe('refund_final');
  const refund = await refundOf(apikey, paymentId, refundId);
  expect(refund?.status).toBe('REFUNDED');
  return refund as Record<string, any>;
}

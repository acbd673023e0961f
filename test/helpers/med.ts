/** MED helpers for the integration tests: drive cases through the sandbox, read their stored events. */

import { expect } from 'vitest';
import { balance, merchant, newCharge, pay, rawId, storedEvents } from './charges.ts';
import { api } from './http.ts';

export const openMed = (apikey: string, chargeId: string, body: Record<string, unknown> = {}) =>
  api(`/v1/sandbox/charges/${chargeId}/med`, { apikey, method: 'POST', body });

export const decideMed = (apikey: string, caseId: string, outcome: string) =>
  api(`/v1/sandbox/med/cases/${caseId}/decide`, { apikey, body: { outcome } });

export const requestEvidence = (apikey: string, caseId: string) =>
  api(`/v1/sandbox/med/cases/${caseId}/request-evidence`, { apikey, method: 'POST' });

/** A paid charge of `amount` of the merchant (public id). */
export async function paidCharge(apikey: string, amount = 10_000): Promise<string> {
  const charge = await newCharge(apikey, { amount });
  expect((await pay(apikey, charge.id, { payer_document: '52998224725' })).body.outcome).toBe('paid');
  return charge.id as string;
}

/** The MED events stored for a charge (public or raw id), oldest first. */
export async function medEvents(accountId: string, chargeId: string) {
  return (await storedEvents(accountId, rawId(chargeId))).filter((e) => /^med/.test(e.eventType));
}

/** A new merchant, a paid charge of `amount`, its balance before the case, and a case opened with `body`. */
export async function disputed(amount = 10_000, body: Record<string, unknown> = {}) {
  const m = await merchant();
  const chargeId = await paidCharge(m.apikey, amount);
  const before = await balance(m.apikey);
  const opened = await openMed(m.apikey, chargeId, body);
  expect(opened.status).toBe(201);
  return { ...m, chargeId, before, medCase: opened.body as Record<string, any> };
}

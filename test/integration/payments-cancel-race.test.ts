/**
 * A cancel racing a Pix arrival, many times over: for each payment exactly one wins. Either the
 * cancel (CANCELLED, the Pix returned to the payer as an automatic devolution, the balance
 * untouched) or the Pix (PAID and credited once, the cancel refused with
 * `payment_not_cancellable`). Afterwards every wallet equals its ledger.
 */

import { describe, expect, it } from 'vitest';
import { computeFees, DEFAULT_SETTINGS } from '../../shared/domain/account-settings.ts';
import { listRefunds } from '../../shared/store/refunds.ts';
import { balance, merchant, newIdempotencyKey, pay, storedEvents } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';
import { ledgerDiscrepancies } from '../helpers/ledger-invariant.ts';
import { runtimeLogRecords } from '../helpers/runtime-log.ts';

const ROUNDS = 20;
const CONCURRENTLY = 5;

const cancelPayment = (apikey: string, id: string) =>
  api(`/v1/payments/${id}/cancel`, { apikey, method: 'POST' });

async function createPayment(apikey: string, amount: number): Promise<string> {
  const reply = await api('/v1/payments', {
    apikey,
    body: { amount, paymentMethods: ['PIX'], idempotencyKey: newIdempotencyKey() },
  });
  if (reply.status !== 201) throw new Error(JSON.stringify(reply.body));
  return reply.body.id;
}

describe('cancel racing a Pix arrival', () => {
  it(`ends each of ${ROUNDS} payments in exactly one outcome, and the ledger agrees`, async () => {
    const m = await merchant();
    // `CONCURRENTLY` rounds at a time (all at once would queue every request behind the others
    // in the one local runtime, up to its 10 s request timeout on a busy machine, for nothing:
    // the race is within a round). Each round creates a payment, then fires its cancel and its
    // Pix together, in alternating order so each side is sometimes first.
    const race = async (i: number) => {
      const id = await createPayment(m.apikey, 1000 + i);
      const cancelFirst = i % 2 === 0;
      const first = cancelFirst ? cancelPayment(m.apikey, id) : pay(m.apikey, `ch_${id}`);
      const second = cancelFirst ? pay(m.apikey, `ch_${id}`) : cancelPayment(m.apikey, id);
      const [a, b] = await Promise.all([first, second]);
      const [cancelled, paid] = cancelFirst ? [a, b] : [b, a];
      return { id, amount: 1000 + i, cancelled, paid };
    };
    const rounds: Awaited<ReturnType<typeof race>>[] = [];
    for (let start = 0; start < ROUNDS; start += CONCURRENTLY)
      rounds.push(...(await Promise.all(Array.from({ length: CONCURRENTLY }, (_, k) => race(start + k)))));

    let credited = 0;
    const outcomes = { cancelled: 0, paid: 0 };
    for (const { id, amount, cancelled, paid } of rounds) {
      expect(paid.status).toBe(200);
      const stored = (await api(`/v1/payments/${id}`, { apikey: m.apikey })).body;
      const refunds = await listRefunds({ accountId: m.accountId, mode: 'test' }, id);
      const types = (await storedEvents(m.accountId, id)).map((e) => e.eventType);
      if (paid.body.outcome === 'paid') {
        outcomes.paid++;
        expectError(cancelled, 400, 'invalid_request_error', 'payment_not_cancellable');
        expect(stored.status).toBe('PAID');
        expect(refunds).toEqual([]);
        expect(types).toContain('charge.paid');
        expect(types).not.toContain('charge.failed');
        credited += computeFees(amount, DEFAULT_SETTINGS.feePlan).netAmount;
      } else {
        outcomes.cancelled++;
        expect(cancelled.status).toBe(200);
        expect(cancelled.body.status).toBe('CANCELLED');
        expect(paid.body).toMatchObject({ outcome: 'returned', return_reason: 'not_payable' });
        expect(stored.status).toBe('CANCELLED');
        expect(refunds).toEqual([
          expect.objectContaining({
            automatic: true,
            strategy: 'devolution',
            amount,
            endToEndId: paid.body.end_to_end_id,
          }),
        ]);
        expect(types).toContain('charge.failed');
        expect(types).not.toContain('charge.paid');
      }
    }
    const lostRaces = runtimeLogRecords().filter(
      (r) =>
        r.message === 'cancel lost a race, reading the payment again' &&
        rounds.some((round) => round.id === r.chargeId),
    ).length;
    console.log(
      `cancel/Pix race outcomes: ${JSON.stringify(outcomes)}, cancels that lost a race: ${lostRaces}`,
    );
    // Each round sends both requests together, each side first in half of them, and either may
    // win (about half each in practice): over the rounds both must have won, or no race was run.
    expect(outcomes.cancelled).toBeGreaterThan(0);
    expect(outcomes.paid).toBeGreaterThan(0);
    expect(await balance(m.apikey)).toMatchObject({ available: credited, pending: 0 });
    expect(await ledgerDiscrepancies()).toEqual([]);
  });
});

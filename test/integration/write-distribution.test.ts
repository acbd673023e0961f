/**
 * No single hot item on the money path (docs/scale.md): 2,000 settlements of one merchant, 50 in
 * flight, each a create and a sandbox Pix over HTTP. Every item write the table commits meanwhile
 * is read from its stream; no item may take more than its fair share (1/N of its entity's
 * writes, N the account's wallet shards, twice that for the live-charge counter, plus a stated
 * margin): an item every settlement writes (one wallet, one counter) would take them all. The
 * day aggregates, written by the outbox once per stream batch, spread over N shards too. And no
 * partition key may take more than its fair share of the time-ordered items (charges,
 * events, journals: 1/k of their writes, k the scope's item partitions): one partition every
 * insert lands at the newest end of would take them all.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { computeFees, DEFAULT_SETTINGS } from '../../shared/domain/account-settings.ts';
import { SCOPE_PARTITIONS } from '../../shared/domain/scope-partitions.ts';
import { liveCounterShards } from '../../shared/domain/shards.ts';
import { readLiveCounters } from '../../shared/store/charges.ts';
import { parseScopePartition, scopePk } from '../../shared/store/keys.ts';
import { readWalletShards } from '../../shared/store/wallets.ts';
import { balance, merchant, newCharge, pay } from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import { recordTableWrites, type TableWrite } from '../helpers/table-writes.ts';

const SETTLEMENTS = 2000;
const IN_FLIGHT = 50;
const SHARDS = DEFAULT_SETTINGS.walletShards;
const AMOUNT = 1000;
/** The counter has twice the wallet's shards (each of its charges writes it twice). */
const COUNTER_SHARDS = liveCounterShards(SHARDS);
/**
 * An item's writes may exceed its fair share by a quarter of it. Shards are chosen at random:
 * a wallet shard's count is Binomial(2 000, 1/4), mean 500, standard deviation 19, so 125 more
 * is 6.4 deviations; a counter shard's is twice Binomial(2 000, 1/8), mean 500, deviation 30,
 * 4.2 deviations (about 1 run in 10,000 over its 8 shards). An unsharded item (all of them), or
 * a shard taking twice its share, fails.
 */
const MARGIN = 0.25;
const shardsOf = (type: string) => (type === 'counter' ? COUNTER_SHARDS : SHARDS);
/**
 * A scope item partition's writes may exceed its fair share (1/k) by a quarter of it. The
 * partition is a hash of each item's id, so per partition the count is a sum of binomials: a
 * settlement's charge (written twice, create and settle: 2 × Binomial(2 000, 1/16), deviation
 * 22), its events (about 5 each, each its own id: Binomial(10 000, 1/16), deviation 24) and its
 * journal (Binomial(2 000, 1/16), deviation 11), mean about 1 000 and deviation about 34: 250 more
 * is 7 deviations. One partition for all of them (as before: k times its share) fails.
 */
const PARTITION_MARGIN = 0.25;
const TIME_ORDERED = new Set(['charge', 'event', 'ledger', 'tranche']);
const pkOf = (w: TableWrite) => w.key.slice(0, w.key.indexOf('|'));

/**
 * Writes the outbox makes from the stream, summed once per stream batch and not in any
 * settlement's transaction: off the money path (docs/architecture.md), so not counted with it.
 * The day aggregates (`paymentDay`) have their own check below (one write per batch, so far
 * fewer writes and a wider margin) and are checked against the ledger.
 */
const OFF_MONEY_PATH = new Set(['paymentCount', 'countedMarker', 'paymentDay']);
/**
 * A day shard's writes may exceed their fair share by 4.5 standard deviations: a batch's write
 * goes to the wallet shard of its first charge (random), so a shard's count is Binomial(n, 1/N)
 * for n batch writes (with n = 300, 75 ± 7.5, so up to 109; an unsharded day item takes all 300).
 */
const dayShardAllowance = (writes: number) =>
  writes / SHARDS + 4.5 * Math.sqrt((writes * (SHARDS - 1)) / SHARDS ** 2);

/** Runs `count` tasks, `inFlight` at a time (the workers starting 50 ms apart, not in one burst). */
async function inParallel(count: number, inFlight: number, task: () => Promise<void>): Promise<void> {
  let started = 0;
  const worker = async (n: number) => {
    await sleep(n * 50);
    while (started < count) {
      started++;
      await task();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, n) => worker(n)));
}

describe('write distribution of one merchant’s settlements', () => {
  it(`spreads ${SETTLEMENTS} settlements (${IN_FLIGHT} in flight) so no item takes more than its fair share`, async () => {
    const m = await merchant({ rateLimitPerMinute: 1_000_000 });
    const scope = { accountId: m.accountId, mode: 'test' as const };
    const recorder = await recordTableWrites();
    const ofMerchant = (w: TableWrite) =>
      (w.accountId === m.accountId || w.key.includes(m.accountId)) && !OFF_MONEY_PATH.has(w.type ?? '');
    try {
      const started = Date.now();
      await inParallel(SETTLEMENTS, IN_FLIGHT, async () => {
        const charge = await newCharge(m.apikey, { amount: AMOUNT });
        const paid = await pay(m.apikey, charge.id);
        if (paid.body?.outcome !== 'paid')
          throw new Error(`pay: ${paid.status} ${JSON.stringify(paid.body)}`);
      });
      const seconds = (Date.now() - started) / 1000;
      console.info(
        `${SETTLEMENTS} settlements in ${seconds.toFixed(1)} s (${(SETTLEMENTS / seconds).toFixed(0)}/s)`,
      );

      // Positive control: every settlement's wallet, counter, charge and journal writes are recorded.
      const byType = await eventually(
        () => {
          const counts = new Map<string, Map<string, number>>();
          for (const w of recorder.writes.filter(ofMerchant)) {
            const items = counts.get(w.type ?? '?') ?? new Map<string, number>();
            items.set(w.key, (items.get(w.key) ?? 0) + 1);
            counts.set(w.type ?? '?', items);
          }
          const total = (type: string) => [...(counts.get(type)?.values() ?? [])].reduce((t, n) => t + n, 0);
          expect(total('wallet')).toBeGreaterThanOrEqual(SETTLEMENTS);
          expect(total('counter')).toBeGreaterThanOrEqual(2 * SETTLEMENTS);
          expect(total('charge')).toBeGreaterThanOrEqual(2 * SETTLEMENTS);
          expect(total('ledger')).toBeGreaterThanOrEqual(SETTLEMENTS);
          return counts;
        },
        { timeoutMs: 60_000, intervalMs: 500, message: 'the stream records of every settlement' },
      );

      for (const type of ['wallet', 'counter'])
        console.info(`${type} writes per shard: ${[...(byType.get(type)?.values() ?? [])].join(', ')}`);
      const dayWrites = recorder.writes.filter((w) => w.type === 'paymentDay' && w.key.includes(m.accountId));
      const dayShards = new Map<string, number>();
      for (const w of dayWrites) dayShards.set(w.key, (dayShards.get(w.key) ?? 0) + 1);
      console.info(
        `day aggregate writes (one per stream batch): ${dayWrites.length}, per shard: ${[...dayShards.values()].join(', ')}`,
      );
      // Spread over the N shards of the day (two days' shards when the run crosses São Paulo midnight).
      expect(dayShards.size).toBeGreaterThanOrEqual(SHARDS);
      const allowedDay = dayShardAllowance(dayWrites.length);
      expect([...dayShards].filter(([, count]) => count > allowedDay)).toEqual([]);
      const hot: string[] = [];
      for (const [type, items] of byType) {
        const writes = [...items.values()].reduce((t, n) => t + n, 0);
        const allowed = (writes / shardsOf(type)) * (1 + MARGIN);
        for (const [key, count] of items)
          if (count > allowed && count > 1) hot.push(`${type} ${key}: ${count} of ${writes}`);
      }
      expect(hot).toEqual([]);
      // Exactly one wallet write per settlement over N shards, two counter writes (create, settle) over 2N.
      expect([...(byType.get('wallet')?.values() ?? [])].reduce((t, n) => t + n, 0)).toBe(SETTLEMENTS);
      expect(byType.get('wallet')?.size).toBe(SHARDS);
      expect([...(byType.get('counter')?.values() ?? [])].reduce((t, n) => t + n, 0)).toBe(2 * SETTLEMENTS);
      expect(byType.get('counter')?.size).toBe(COUNTER_SHARDS);

      // The time-ordered items spread over the k partition keys, none of them in the scope's own.
      const timeOrdered = recorder.writes.filter((w) => ofMerchant(w) && TIME_ORDERED.has(w.type ?? ''));
      expect(timeOrdered.filter((w) => pkOf(w) === scopePk(scope))).toEqual([]);
      const byPartition = new Map<string, number>();
      for (const w of timeOrdered) byPartition.set(pkOf(w), (byPartition.get(pkOf(w)) ?? 0) + 1);
      console.info(
        `time-ordered writes (${timeOrdered.length}) per partition key: ${[...byPartition.values()].join(', ')}`,
      );
      expect(byPartition.size).toBe(SCOPE_PARTITIONS);
      for (const pk of byPartition.keys()) expect(parseScopePartition(pk)).toBeTypeOf('number');
      const partitionAllowed = (timeOrdered.length / SCOPE_PARTITIONS) * (1 + PARTITION_MARGIN);
      expect([...byPartition].filter(([, count]) => count > partitionAllowed)).toEqual([]);
    } finally {
      await recorder.stop();
    }

    // Balances, counters and the ledger agree.
    const net = computeFees(AMOUNT, DEFAULT_SETTINGS.feePlan).netAmount;
    expect((await balance(m.apikey)).available).toBe(SETTLEMENTS * net);
    const shards = await readWalletShards(scope, 'BRL');
    expect(shards.reduce((t, s) => t + s.available, 0)).toBe(SETTLEMENTS * net);
    expect((await readLiveCounters(scope)).map((c) => c.count)).toEqual(Array(COUNTER_SHARDS).fill(0));
    // The day aggregates, kept from the stream, agree once it has caught up (two business days:
    // a run across São Paulo midnight counts in both).
    const stats = await eventually(
      async () => {
        const reply = await api('/v1/payments/stats?days=2', { apikey: m.apikey });
        expect(reply.body.paidTransactions).toBe(SETTLEMENTS);
        return reply.body;
      },
      { timeoutMs: 60_000, intervalMs: 500, message: 'the day aggregates of every settlement' },
    );
    expect(stats.totalTransactions).toBe(SETTLEMENTS);
    expect(stats.volumeByCurrency).toEqual([
      { currency: 'BRL', volume: SETTLEMENTS * AMOUNT, count: SETTLEMENTS },
    ]);
    // And the ledger: test/helpers/ledger-invariant.ts checks every wallet against its journals
    // after this file.
  }, 600_000);
});

import { describe, expect, it } from 'vitest';
import { liveCounterShards, planDebit, shardLimits, shardsWithRoom } from '../../shared/domain/shards.ts';

describe('shardLimits', () => {
  it('splits the limit evenly, the remainder one each on the first shards', () => {
    expect(shardLimits(10, 4)).toEqual([3, 3, 2, 2]);
    expect(shardLimits(3, 4)).toEqual([1, 1, 1, 0]);
    expect(shardLimits(1000, 4)).toEqual([250, 250, 250, 250]);
  });

  it('never shrinks a shard’s share as the limit grows', () => {
    for (let limit = 0; limit < 50; limit++) {
      const now = shardLimits(limit, 4);
      const next = shardLimits(limit + 1, 4);
      expect(next.every((share, i) => share >= (now[i] ?? 0))).toBe(true);
      expect(now.reduce((t, n) => t + n, 0)).toBe(limit);
    }
  });
});

describe('liveCounterShards', () => {
  it('gives the counter, written twice per settlement, twice the wallet’s shards', () => {
    expect([1, 4, 64].map(liveCounterShards)).toEqual([2, 8, 128]);
  });
});

describe('shardsWithRoom', () => {
  it('offers only active shards below their share, rotated by the seed', () => {
    const counts = [
      { shard: 0, count: 3 },
      { shard: 1, count: 1 },
    ];
    expect(shardsWithRoom(counts, 10, 4, 0)).toEqual([
      { shard: 1, below: 3 },
      { shard: 2, below: 2 },
      { shard: 3, below: 2 },
    ]);
    expect(shardsWithRoom(counts, 10, 4, 1).map((s) => s.shard)).toEqual([2, 3, 1]);
  });

  it('takes the charges still counted in retired shards off the limit first', () => {
    // Lowered from 4 shards to 2: shards 2 and 3, and the unsharded counter, only drain.
    const counts = [
      { shard: 0, count: 1 },
      { shard: 1, count: 1 },
      { shard: 2, count: 2 },
      { shard: undefined, count: 1 },
    ];
    // 3 retired: 6 leaves 3 to split, [2, 1]; 5 leaves [1, 1]; 7 leaves [2, 2].
    expect(shardsWithRoom(counts, 6, 2, 0)).toEqual([{ shard: 0, below: 2 }]);
    expect(shardsWithRoom(counts, 5, 2, 0)).toEqual([]);
    expect(shardsWithRoom(counts, 7, 2, 0)).toEqual([
      { shard: 0, below: 2 },
      { shard: 1, below: 2 },
    ]);
  });

  it('has no room when every share is taken', () => {
    expect(shardsWithRoom([{ shard: 0, count: 1 }], 1, 4, 3)).toEqual([]);
  });
});

describe('planDebit', () => {
  const shards = [
    { shard: 0, available: 500 },
    { shard: 1, available: 9800 },
    { shard: undefined, available: 300 },
  ];

  it('takes the whole amount from one shard that covers it', () => {
    expect(planDebit(shards, 400, 0)).toEqual([{ shard: 0, amount: 400 }]);
    expect(planDebit(shards, 400, 1)).toEqual([{ shard: 1, amount: 400 }]);
  });

  it('splits over the shards in turn from the seed’s when none covers it alone, never overdrawing one', () => {
    expect(planDebit(shards, 10_500, 0)).toEqual([
      { shard: 0, amount: 500 },
      { shard: 1, amount: 9800 },
      { shard: undefined, amount: 200 },
    ]);
    expect(planDebit(shards, 10_500, 1)).toEqual([
      { shard: 1, amount: 9800 },
      { shard: undefined, amount: 300 },
      { shard: 0, amount: 400 },
    ]);
  });

  it('spreads debits no single shard covers over different shards by seed, so concurrent ones do not all race for the same', () => {
    const even = Array.from({ length: 64 }, (_, shard) => ({ shard, available: 9800 }));
    const plans = Array.from({ length: 64 }, (_, seed) => planDebit(even, 10_000, seed) ?? []);
    for (const plan of plans) {
      expect(plan.reduce((t, d) => t + d.amount, 0)).toBe(10_000);
      expect(plan.every((d) => d.amount <= 9800)).toBe(true);
    }
    // Each plan takes two shards; 64 seeds start at 64 different ones.
    expect(new Set(plans.map((plan) => plan[0]?.shard)).size).toBe(64);
  });

  it('refuses only what the sum cannot cover', () => {
    expect(planDebit(shards, 10_600, 0)).toHaveLength(3);
    expect(planDebit(shards, 10_601, 0)).toBeUndefined();
  });

  it('counts a negative shard against the sum and brings it back to zero in the same debit', () => {
    // A MED hold took shard 2 below zero: the merchant's balance is 10 400.
    const withDebt = [...shards, { shard: 2, available: -200 }];
    expect(planDebit(withDebt, 10_401, 0)).toBeUndefined();
    expect(planDebit(withDebt, 300, 1)).toEqual([
      { shard: 1, amount: 500 },
      { shard: 2, amount: -200 },
    ]);
    const all = planDebit(withDebt, 10_400, 0) ?? [];
    expect(all.reduce((t, d) => t + d.amount, 0)).toBe(10_400);
    const held = (shard: number | undefined) => withDebt.find((s) => s.shard === shard)?.available ?? 0;
    expect(all.every((d) => d.amount <= held(d.shard))).toBe(true);
  });
});

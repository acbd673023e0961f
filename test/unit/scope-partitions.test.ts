import { describe, expect, it } from 'vitest';
import { type SourcePage, takeInOrder } from '../../shared/domain/merge.ts';
import { SCOPE_PARTITIONS, scopePartitionOf } from '../../shared/domain/scope-partitions.ts';
import {
  chargeKey,
  eventKey,
  eventKeyOfSk,
  parseScope,
  parseScopePartition,
  scopePartitionPks,
  scopePk,
} from '../../shared/store/keys.ts';

const scope = { accountId: 'acct_1', mode: 'live' } as const;

describe('scope partitions', () => {
  it('puts an item in the partition its own id hashes to, the same in every process', () => {
    // A fixed expectation: a change of the hash would orphan every item written before.
    expect(scopePartitionOf('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b')).toBe(
      scopePartitionOf('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'),
    );
    expect(chargeKey(scope, 'abc').pk).toBe(`${scopePk(scope)}#${scopePartitionOf('abc')}`);
    expect(scopePartitionPks(scope)).toHaveLength(SCOPE_PARTITIONS);
    expect(scopePartitionPks(scope)).toContain(chargeKey(scope, 'abc').pk);
  });

  it('spreads ids evenly', () => {
    const counts = Array(SCOPE_PARTITIONS).fill(0);
    for (let n = 0; n < 16_000; n++) counts[scopePartitionOf(`evt_${n}`)]++;
    // Binomial(16 000, 1/16): mean 1 000, deviation 31; 200 is more than 6 deviations.
    for (const count of counts) expect(Math.abs(count - 1000)).toBeLessThan(200);
  });

  it('parses the scope and k of a partition key, and refuses anything else', () => {
    const pk = scopePartitionPks(scope)[3] as string;
    expect(parseScope(pk)).toEqual(scope);
    expect(parseScopePartition(pk)).toBe(3);
    expect(parseScope(scopePk(scope))).toEqual(scope);
    expect(parseScopePartition(scopePk(scope))).toBeUndefined();
    expect(() => parseScope(`${scopePk(scope)}#x`)).toThrow();
    expect(() => parseScope(`${scopePk(scope)}#1#2`)).toThrow();
  });

  it('finds an event from its sort key alone', () => {
    const key = eventKey(scope, '2026-11-22T10:00:00.000Z', 'evt_42');
    expect(eventKeyOfSk(scope, key.sk)).toEqual(key);
    expect(() => eventKeyOfSk(scope, 'DELIVERY#x#y')).toThrow();
  });
});

describe('takeInOrder', () => {
  const page = (items: string[], more = false): SourcePage<string> => ({ items, more });

  it('merges ascending partitions without skipping a partition that may hold more', () => {
    const out: string[] = [];
    const a = page(['1', '4']);
    const b = page(['2'], true);
    expect(takeInOrder([a, b], (s) => s, out, 3, 'asc')).toBe('refill');
    expect(out).toEqual(['1', '2']);
    b.items.push('3');
    b.more = false;
    expect(takeInOrder([a, b], (s) => s, out, 3, 'asc')).toBe('done');
    expect(out).toEqual(['1', '2', '3']);
  });

  it('merges descending partitions', () => {
    const out: string[] = [];
    expect(takeInOrder([page(['9', '5']), page(['8', '7'])], (s) => s, out, 3, 'desc')).toBe('done');
    expect(out).toEqual(['9', '8', '7']);
  });
});

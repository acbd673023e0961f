/**
 * Sharded money-path items (docs/data-model.md, "Sharded balances and live-charge counter"):
 * a merchant's wallet balance and live-charge counter are each split in `walletShards` items, so
 * one merchant's settlements do not all write (and conflict on) one item. Pure rules: which
 * shard a new charge takes, how the live-charge limit is split, and which shards a debit that
 * must not overdraw takes from.
 */

/** One stored shard: `shard` undefined is the single item written before sharding. */
export interface ShardBalance {
  shard: number | undefined;
  available: number;
}

export interface ShardCount {
  shard: number | undefined;
  count: number;
}

/** One shard's part of a guarded debit: `amount` leaves it only if it still holds as much. */
export interface ShardDebit {
  shard: number | undefined;
  amount: number;
}

/**
 * A transaction holds at most 100 items: a refund's own 6 items plus one debit per shard must
 * fit, with room to spare.
 */
export const MAX_WALLET_SHARDS = 64;

export const isValidShardCount = (n: number): boolean =>
  Number.isInteger(n) && n >= 1 && n <= MAX_WALLET_SHARDS;

/**
 * The live-charge limit of each active shard: `limit` split as evenly as possible, the
 * remainder spread over the first shards. Each index's share never shrinks as `limit` grows,
 * which is what keeps the sum exact when writers computed it from different reads.
 */
export function shardLimits(limit: number, shards: number): number[] {
  const base = Math.floor(limit / shards);
  const extra = limit % shards;
  return Array.from({ length: Math.max(0, shards) }, (_, i) => base + (i < extra ? 1 : 0));
}

/**
 * The active shards (`0…shards-1`) a new live charge may take, each with the limit its
 * increment must stay below, in an order rotated by `seed` (concurrent creates spread).
 * Charges still counted in retired shards (beyond `shards`, or the unsharded counter) only
 * leave them: their count comes off the limit first, so the total never exceeds `limit`.
 */
export function shardsWithRoom(
  counts: readonly ShardCount[],
  limit: number,
  shards: number,
  seed: number,
): { shard: number; below: number }[] {
  const active = (s: number | undefined): s is number => s !== undefined && s < shards;
  const retired = counts.filter((c) => !active(c.shard)).reduce((t, c) => t + c.count, 0);
  const limits = shardLimits(Math.max(0, limit - retired), shards);
  const countOf = (shard: number) => counts.find((c) => c.shard === shard)?.count ?? 0;
  const open = limits.flatMap((below, shard) => (countOf(shard) < below ? [{ shard, below }] : []));
  return rotate(open, seed);
}

/** The sum of a scope's live charges over every counter item. */
export const totalCount = (counts: readonly ShardCount[]): number => counts.reduce((t, c) => t + c.count, 0);

/**
 * Where a debit of `amount` that must not overdraw comes from, or `undefined` when the shards
 * together do not cover it. One shard that covers it alone if any (chosen by `seed`, so
 * concurrent debits spread); else the largest shards, each giving what it holds, until the
 * amount is covered: moving balance between shards and debiting in the same transaction, so
 * there is no separate rebalancing step and nothing half-moved.
 */
export function planDebit(
  shards: readonly ShardBalance[],
  amount: number,
  seed: number,
): ShardDebit[] | undefined {
  const positive = shards.filter((s) => s.available > 0);
  if (positive.reduce((t, s) => t + s.available, 0) < amount) return undefined;
  const covering = rotate(
    positive.filter((s) => s.available >= amount),
    seed,
  );
  const single = covering[0];
  if (single) return [{ shard: single.shard, amount }];
  const parts: ShardDebit[] = [];
  let left = amount;
  for (const s of [...positive].sort((a, b) => b.available - a.available)) {
    if (left === 0) break;
    const take = Math.min(s.available, left);
    parts.push({ shard: s.shard, amount: take });
    left -= take;
  }
  return parts;
}

/** `list` starting at `seed` (mod its length), wrapping around. */
function rotate<T>(list: readonly T[], seed: number): T[] {
  if (list.length === 0) return [];
  const start = Math.abs(Math.trunc(seed)) % list.length;
  return [...list.slice(start), ...list.slice(0, start)];
}

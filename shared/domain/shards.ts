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

/**
 * One shard's part of a guarded debit: a positive `amount` leaves it only if it still holds as
 * much; a negative one is added to it (a negative shard brought back to zero).
 */
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
 * The live-charge counter's shard count for an account's `walletShards`: twice as many, since
 * a settlement writes its counter shard twice (the create's +1, the end's −1) and its wallet
 * shard once, so each counter shard takes the load of a wallet shard. A create touches one
 * counter shard, so their number is not bounded by a transaction's size.
 */
export const liveCounterShards = (walletShards: number): number => 2 * walletShards;

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
 * together (their sum, negative shards included) do not cover it. A shard may be negative (a
 * MED hold takes its charge's shard below zero): the plan also brings every negative shard back
 * to zero, so that the conditions on the shards it takes from guard the sum and not just those
 * shards. What it takes (`amount` plus those debts) comes from one shard that holds it all if
 * any, else from the shards in turn, each giving what it holds, until covered; both chosen by
 * `seed`, so that concurrent debits spread over the shards rather than all race for the same
 * ones. Moving balance between shards and debiting happen in the same
 * transaction: no separate rebalancing step, nothing half-moved. A negative part is such a
 * credit to a negative shard (no condition).
 */
export function planDebit(
  shards: readonly ShardBalance[],
  amount: number,
  seed: number,
): ShardDebit[] | undefined {
  if (shards.reduce((t, s) => t + s.available, 0) < amount) return undefined;
  const debts: ShardDebit[] = shards
    .filter((s) => s.available < 0)
    .map((s) => ({ shard: s.shard, amount: s.available }));
  const needed = amount - debts.reduce((t, d) => t + d.amount, 0);
  const positive = shards.filter((s) => s.available > 0);
  const single = rotate(
    positive.filter((s) => s.available >= needed),
    seed,
  )[0];
  if (single) return [{ shard: single.shard, amount: needed }, ...debts];
  const parts: ShardDebit[] = [];
  let left = needed;
  for (const s of rotate(positive, seed)) {
    if (left === 0) break;
    const take = Math.min(s.available, left);
    parts.push({ shard: s.shard, amount: take });
    left -= take;
  }
  return [...parts, ...debts];
}

/** `list` starting at `seed` (mod its length), wrapping around. */
function rotate<T>(list: readonly T[], seed: number): T[] {
  if (list.length === 0) return [];
  const start = Math.abs(Math.trunc(seed)) % list.length;
  return [...list.slice(start), ...list.slice(0, start)];
}

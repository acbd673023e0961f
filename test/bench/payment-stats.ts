/**
 * Stats and metrics cost O(days), not O(transactions): two merchant scopes, 1 000 and 100 000
 * payments over the same 30 days (same mix of statuses, no QR image: the reports never read the
 * charges), seeded through the store's item builder straight into the bench runtime's DynamoDB
 * Local; the runtime's own outbox then counts them from the stream into the day aggregates, as
 * it counts the service's payments (the real path, timed: "counted in"). Then the same report
 * requests against both through the API, alternating, and the p50 ratio 100 k / 1 k.
 *
 * `--seed-aggregates` writes the day aggregate items instead of the charges, as the stream would
 * (the domain's `dayFiguresDelta` of each charge's creation in its final state, summed per item,
 * `ADD`ed through the store's `paymentDayAddItem`): minutes faster on a busy machine, and the
 * reports read exactly the same items.
 */

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import {
  chargeImageOf,
  dayCellOf,
  dayFiguresDelta,
  sumDayChanges,
} from '../../shared/domain/payment-aggregates.ts';
import { waitForQuietRuntime } from './cpu.ts';
import type { QueryFigures } from './delivery-queries.ts';
import {
  loadStore,
  secondsUntilCounted,
  seedScope,
  timedGet,
  timeQueriesAlternating,
} from './payment-queries.ts';
import type { BenchRuntime } from './runtime.ts';
import { round } from './stats.ts';

export const STATS_SCOPE_SIZES = [1_000, 100_000] as const;
const SPAN_MS = 30 * 86_400_000;
const COUNTED_WAIT_MS = 900_000;
/** The p50 at 100 k may be at most this multiple of the p50 at 1 k (the goal in docs/benchmarks.md, "Stats and metrics"). */
export const STATS_RATIO_GOAL = 1.5;

/** 22 business days reach back past the 30 calendar days seeded. */
export const STATS_QUERIES = [
  { label: 'stats (days=7, the default)', path: '/v1/payments/stats' },
  { label: 'stats days=22 (all 30 days seeded)', path: '/v1/payments/stats?days=22' },
  { label: 'metrics (days=7)', path: '/v1/payments/metrics' },
  { label: 'metrics days=22&currency=BRL', path: '/v1/payments/metrics?days=22&currency=BRL' },
] as const;

export interface PaymentStatsResults {
  sizes: number[];
  seedSeconds: number[];
  /** From the last write of the seed until the stats showed every payment (the stream's counting). */
  countedSeconds: number[];
  queries: { label: string; bySize: QueryFigures[]; p50Ratio: number }[];
  ratioGoal: number;
  /** The day aggregates written directly (`--seed-aggregates`) rather than counted from the stream. */
  seededAggregates: boolean;
}

export async function measurePaymentStats(
  runtime: BenchRuntime,
  step: (message: string) => void,
  seedAggregates = false,
): Promise<PaymentStatsResults> {
  const store = await loadStore(runtime);
  const { paymentDayAddItem } = await import('../../shared/store/payment-aggregates.ts');
  /** The day items the stream would write for these charges' creations. */
  const putDayAggregates = async (charges: ChargeRecord[]) => {
    const changes = charges.map((charge) => {
      const image = chargeImageOf(charge);
      const scope = { accountId: charge.accountId, mode: charge.mode };
      return { cell: dayCellOf(scope, image), delta: dayFiguresDelta(undefined, image) };
    });
    for (const { cell, delta } of sumDayChanges(changes)) {
      const update = paymentDayAddItem(cell, delta).Update;
      if (update) await store.client.db.send(new UpdateCommand(update));
    }
  };
  const scopes: { apiKey: string }[] = [];
  const seedSeconds: number[] = [];
  const countedSeconds: number[] = [];
  for (const size of STATS_SCOPE_SIZES) {
    step(
      `stats: seeding ${size} payments over 30 days in one scope (${seedAggregates ? 'their day aggregates' : 'batch writes'})`,
    );
    const startedAt = performance.now();
    const scope = await seedScope(store, size, {}, SPAN_MS, seedAggregates ? putDayAggregates : undefined);
    seedSeconds.push(round((performance.now() - startedAt) / 1000));
    scopes.push(scope);
    step(
      seedAggregates
        ? 'stats: reading them back'
        : 'stats: waiting for the outbox to count them from the stream into the day aggregates',
    );
    const totalOf = async () =>
      (await timedGet(runtime.settings.baseUrl, scope.apiKey, STATS_QUERIES[1].path, 'ps-wait')).body
        .totalTransactions;
    countedSeconds.push(
      await secondsUntilCounted(totalOf, size, COUNTED_WAIT_MS, (counted) =>
        step(`stats: ${String(counted)} of ${size} counted`),
      ),
    );
  }
  await waitForQuietRuntime(runtime.pid, { maxSeconds: 60 });
  await runtime.settle();
  const queries = await timeQueriesAlternating(runtime, scopes, STATS_QUERIES, 'ps', (message) =>
    step(`stats: ${message}`),
  );
  return {
    sizes: [...STATS_SCOPE_SIZES],
    seedSeconds,
    countedSeconds,
    queries: queries.map((q) => ({
      ...q,
      p50Ratio: round((q.bySize[1]?.p50 ?? 0) / Math.max(0.1, q.bySize[0]?.p50 ?? 0), 2),
    })),
    ratioGoal: STATS_RATIO_GOAL,
    seededAggregates: seedAggregates,
  };
}

/**
 * Payment seeding for tests and the benchmark: charges written straight into the table through
 * the store's item builder (`chargeItem`, with its index attributes), 25 a `BatchWriteItem`, as
 * if the service had created them at the given times. The table's stream counts them as it
 * counts the service's own (the outbox's payment counters).
 */

import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import type { MerchantScope } from '../../shared/domain/scope.ts';
import { newChargeId } from '../../shared/ids.ts';
import { chargeItem } from '../../shared/store/charges.ts';
import { db, tableName } from '../../shared/store/client.ts';

/** A stored charge of `scope` created at `createdAtMs` (awaiting payment for an hour, unless overridden). */
export function seededCharge(
  scope: MerchantScope,
  createdAtMs: number,
  overrides: Partial<ChargeRecord> = {},
): ChargeRecord {
  const at = new Date(createdAtMs).toISOString();
  return {
    id: newChargeId(createdAtMs),
    accountId: scope.accountId,
    mode: scope.mode,
    amount: 1000,
    currency: 'BRL',
    status: 'WAITING_PAYMENT',
    paymentMethod: 'pix',
    customer: {},
    metadata: {},
    idempotencyKey: `seed-${createdAtMs}`,
    baseUrl: 'http://127.0.0.1',
    provider: 'sandbox',
    expiresAt: new Date(createdAtMs + 3600_000).toISOString(),
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

/** Writes `charges` (new ids only: unconditional puts), `inFlight` batches at a time. */
export async function putCharges(charges: readonly ChargeRecord[], inFlight = 8): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let n = 0; n < charges.length; n += 25)
    batches.push(charges.slice(n, n + 25).map((c) => ({ PutRequest: { Item: chargeItem(c) } })));
  const worker = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      let pending = batch;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 20) throw new Error('BatchWriteItem left items unprocessed');
        const { UnprocessedItems } = await db.send(
          new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }),
        );
        pending = (UnprocessedItems?.[tableName()] as Record<string, unknown>[] | undefined) ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/**
 * A/B of the outbox's stream counting: two checkouts' outbox handlers (each a clean tree with
 * `node_modules` linked, e.g. `git archive <commit> | tar -x -C /tmp/a`), called directly with
 * the same kind of synthetic batches against one running DynamoDB Local, in alternating blocks;
 * prints DynamoDB Local's CPU (from /proc) and the wall time per paid charge of each. Only
 * charge and delivery changes, so only the counting runs (the fan-out sees no event).
 *
 *   AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:<port> TABLE_NAME=pix-service AWS_REGION=us-east-1 \
 *   AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local LOG_LEVEL=silent \
 *   node test/bench/counting-ab.ts <java pid> <tree A> <tree B> [charges per batch] [blocks] [batches per block] [shape]
 *
 * (DynamoDB Local from `npm start -- --in-memory` with its own ports; its JVM's pid.) Batch k
 * holds the settlement (charge MODIFY) of group k and the creation of group k−1's deliveries;
 * their PROCESSING and result are in batch k (`together`), both in k+1 (`split`, as when the
 * dispatcher's two writes come one poll after the fan-out) or one poll apart (`pipelined`).
 */

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { streamRecord } from '../helpers/stream-records.ts';

const [javaPid, treeA, treeB, perBatch = '10', blockCount = '16', batchesPerBlock = '10', shape = 'split'] =
  process.argv.slice(2);
if (!javaPid || !treeA || !treeB) throw new Error('usage: counting-ab.ts <java pid> <tree A> <tree B> …');
const G = Number(perBatch);

/** utime + stime of the JVM, in clock ticks (100 per second). */
const ticks = () => {
  const fields = readFileSync(`/proc/${javaPid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
};

type Handler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;
const handlerOf = async (tree: string): Promise<Handler> =>
  (await import(`${tree}/functions/outbox/index.ts`)).handler;
const variants: [string, Handler][] = [
  [treeA, await handlerOf(treeA)],
  [treeB, await handlerOf(treeB)],
];
const { seededCharge } = await import('../helpers/payments.ts');
const { chargeItem } = await import('../../shared/store/charges.ts');
const { deliveryKey } = await import('../../shared/store/keys.ts');

function batches(count: number): DynamoDBStreamEvent[] {
  const scope = { accountId: `acct_ab${randomUUID().slice(0, 8)}`, mode: 'test' as const };
  const at = new Date().toISOString();
  const group = () =>
    Array.from({ length: G }, () => {
      const charge = seededCharge(scope, Date.now() - 30_000, { walletShard: Math.floor(Math.random() * 4) });
      const id = `whd_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
      const delivery = (status: string) => ({
        ...deliveryKey(scope, at, id),
        type: 'webhookDelivery',
        accountId: scope.accountId,
        mode: scope.mode,
        id,
        eventType: 'charge.paid',
        endpointId: `we_${'1'.repeat(24)}`,
        status,
      });
      return { charge, delivery };
    });
  const groups = Array.from({ length: count + 3 }, group);
  const paid = (c: ChargeRecord): ChargeRecord => ({
    ...c,
    status: 'PAID',
    paidAt: new Date().toISOString(),
    fees: { providerFee: 8, platformFee: 12, netAmount: 980 },
  });
  const processingLag = shape === 'together' ? 1 : 2;
  const resultLag = shape === 'together' ? 1 : shape === 'split' ? 2 : 3;
  return Array.from({ length: count }, (_, n) => {
    const k = n + 3;
    return {
      Records: [
        ...(groups[k] ?? []).map((x) =>
          streamRecord('MODIFY', chargeItem(paid(x.charge)), chargeItem(x.charge)),
        ),
        ...(groups[k - 1] ?? []).map((x) => streamRecord('INSERT', x.delivery('PENDING'))),
        ...(groups[k - processingLag] ?? []).map((x) =>
          streamRecord('MODIFY', x.delivery('PROCESSING'), x.delivery('PENDING')),
        ),
        ...(groups[k - resultLag] ?? []).map((x) =>
          streamRecord('MODIFY', x.delivery('DELIVERED'), x.delivery('PROCESSING')),
        ),
      ],
    } as unknown as DynamoDBStreamEvent;
  });
}

const totals = new Map(variants.map(([tree]) => [tree, { ticks: 0, ms: 0, charges: 0 }]));
for (const [, handler] of variants) for (const batch of batches(3)) await handler(batch);
for (let block = 0; block < Number(blockCount); block++) {
  for (const [tree, handler] of block % 2 ? [...variants].reverse() : variants) {
    const work = batches(Number(batchesPerBlock));
    const total = totals.get(tree) ?? { ticks: 0, ms: 0, charges: 0 };
    const [startTicks, startMs] = [ticks(), performance.now()];
    for (const batch of work) {
      const reply = await handler(batch);
      if (reply.batchItemFailures.length > 0) throw new Error(`${tree}: ${JSON.stringify(reply)}`);
    }
    total.ms += performance.now() - startMs;
    total.ticks += ticks() - startTicks;
    total.charges += work.length * G;
    totals.set(tree, total);
  }
}
for (const [tree, t] of totals)
  console.info(
    `${tree}: ${t.charges} paid charges (${G} a batch, ${shape}); DynamoDB Local CPU ${((t.ticks * 10) / t.charges).toFixed(2)} ms, wall ${(t.ms / t.charges).toFixed(2)} ms per paid charge`,
  );

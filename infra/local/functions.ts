/**
 * The Lambda handlers the local runtime serves, imported lazily after the environment is set
 * (config is read at module scope, as in a cold start). `Record<Group, …>` makes a group
 * without a handler a compile error, exactly as in the stack.
 */

import type { Context } from 'aws-lambda';
import type { FilterPattern } from '../../shared/domain/stream-filters.ts';
import type { ApiEvent, ApiResult } from '../../shared/http/types.ts';
import { type BackgroundFunction, outboxStreamFilters } from '../../shared/resources.ts';
import type { Group } from '../../shared/routes.ts';
import type { QueueHandler, StreamHandler } from './pollers.ts';
import { enforceTableGrants, withTableGrants } from './table-grants.ts';

export type ApiHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

const apiHandlers: Record<Group, () => Promise<ApiHandler>> = {
  auth: async () => (await import('../../functions/auth/index.ts')).handler,
  'api-keys': async () => (await import('../../functions/api-keys/index.ts')).handler,
  charges: async () => (await import('../../functions/charges/index.ts')).handler,
  wallets: async () => (await import('../../functions/wallets/index.ts')).handler,
  payments: async () => (await import('../../functions/payments/index.ts')).handler,
  webhooks: async () => (await import('../../functions/webhooks/index.ts')).handler,
  med: async () => (await import('../../functions/med/index.ts')).handler,
  checkout: async () => (await import('../../functions/checkout/index.ts')).handler,
  'provider-callbacks': async () => (await import('../../functions/provider-callbacks/index.ts')).handler,
  sandbox: async () => (await import('../../functions/sandbox/index.ts')).handler,
  docs: async () => (await import('../../functions/docs/index.ts')).handler,
};

/** A group's handler, its DynamoDB calls held to the group's table grants (table-grants.ts). */
export async function loadApiHandler(group: Group): Promise<ApiHandler> {
  await enforceTableGrants();
  return withTableGrants(group, await apiHandlers[group]());
}

/**
 * Background functions and what triggers them, mirroring the stack's event source mappings
 * and schedules. Later features register their consumers here (outbox fan-out on the table
 * stream, the webhook dispatcher on the delivery queue, the scheduler).
 */
interface BackgroundFunctions {
  /** With the mapping's filters, as the stack declares them. */
  tableStream: { handler: StreamHandler; filters?: readonly FilterPattern[] }[];
  webhookQueue: QueueHandler[];
  /** The outbox again, on the descriptions of the stream batches it gave up on. */
  outboxReplayQueue: QueueHandler[];
  /** Consumers of the live acquirers' callbacks. */
  providerCallbackQueue: QueueHandler[];
  schedules: { name: string; everyMs: number; handler: () => Promise<unknown> }[];
}

export async function loadBackgroundFunctions(): Promise<BackgroundFunctions> {
  await enforceTableGrants();
  const measured = await invocationLogger();
  const outbox = measured('outbox', (await import('../../functions/outbox/index.ts')).handler);
  return {
    tableStream: [{ handler: outbox, filters: outboxStreamFilters }],
    outboxReplayQueue: [outbox],
    webhookQueue: [
      measured('webhook-dispatcher', (await import('../../functions/webhook-dispatcher/index.ts')).handler),
    ],
    providerCallbackQueue: [
      measured(
        'provider-callback-consumer',
        (await import('../../functions/provider-callback-consumer/index.ts')).handler,
      ),
    ],
    schedules: [
      {
        name: 'scheduler',
        // The stack runs it every minute; locally more often so expiry is visible quickly.
        everyMs: Number(process.env.SCHEDULER_INTERVAL_MS ?? 5_000),
        handler: measured('scheduler', (await import('../../functions/scheduler/index.ts')).handler),
      },
    ],
  };
}

/**
 * Wraps a background handler so each invocation is one DynamoDB usage scope, logged (debug) as
 * `invocation` with its calls and capacity units, split by named parts: the request log's
 * figures for the work no request makes (the bench adds them up per lifecycle).
 */
async function invocationLogger() {
  const [{ countDynamoDbCalls }, { log }] = await Promise.all([
    import('../../shared/store/client.ts'),
    import('../../shared/log.ts'),
  ]);
  return <A extends unknown[], R>(name: BackgroundFunction, handler: (...args: A) => Promise<R>) => {
    const granted = withTableGrants(name, handler);
    return async (...args: A): Promise<R> => {
      const startedAt = Date.now();
      const { result, calls, readUnits, writeUnits, parts } = await countDynamoDbCalls(() =>
        granted(...args),
      );
      log.debug('invocation', {
        function: name,
        durationMs: Date.now() - startedAt,
        dynamodbCalls: calls,
        dynamodbReadUnits: readUnits,
        dynamodbWriteUnits: writeUnits,
        ...(parts && { parts }),
      });
      return result;
    };
  };
}

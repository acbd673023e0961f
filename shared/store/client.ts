/**
 * The DynamoDB document client, built once per process. A middleware counts the calls made
 * while serving each request (reported in the request log and by the benchmark).
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { type AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';
import pRetry from 'p-retry';
import { withoutSdkLogging } from '../aws-client.ts';
import { config } from '../config.ts';
import type { ItemKey } from './keys.ts';

/**
 * Per request (or background invocation): the calls, the sequential round trips (a call that
 * starts while none of the scope's calls is in flight starts a new one; calls made together
 * share it) and the capacity units DynamoDB reports consuming (table and indexes).
 */
interface CallCount {
  calls: number;
  roundTrips: number;
  inFlight: number;
  readUnits: number;
  writeUnits: number;
  /** The scope this one is nested in: its calls count there too. */
  parent?: CallCount;
  /** The usage of the named parts run within it (`dynamoDbPart`). */
  parts: Record<string, DynamoDbUsage>;
}
const callCounter = new AsyncLocalStorage<CallCount>();

/** Commands that accept `ReturnConsumedCapacity`, and which kind of units each consumes. */
const CAPACITY_KIND: Record<string, 'read' | 'write'> = {
  GetItemCommand: 'read',
  BatchGetItemCommand: 'read',
  QueryCommand: 'read',
  ScanCommand: 'read',
  TransactGetItemsCommand: 'read',
  PutItemCommand: 'write',
  UpdateItemCommand: 'write',
  DeleteItemCommand: 'write',
  BatchWriteItemCommand: 'write',
  TransactWriteItemsCommand: 'write',
};

interface ConsumedCapacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** Read and write units of a response's `ConsumedCapacity` (one, or one per table). */
function unitsOf(consumed: ConsumedCapacity | ConsumedCapacity[] | undefined, kind: 'read' | 'write') {
  let read = 0;
  let write = 0;
  for (const c of consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed]) {
    // TOTAL gives `CapacityUnits`; the split, when present, is what a transaction mixes.
    if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
      read += c.ReadCapacityUnits ?? 0;
      write += c.WriteCapacityUnits ?? 0;
    } else if (kind === 'read') read += c.CapacityUnits ?? 0;
    else write += c.CapacityUnits ?? 0;
  }
  return { read, write };
}

const base = withoutSdkLogging(new DynamoDBClient({}));
base.middlewareStack.add(
  (next, context) => async (args) => {
    const kind = CAPACITY_KIND[context.commandName ?? ''];
    // A copy: the caller's command input stays as it built it.
    if (kind) args = { ...args, input: { ReturnConsumedCapacity: 'TOTAL', ...args.input } };
    const counter = callCounter.getStore();
    if (!counter) return next(args);
    for (let c: CallCount | undefined = counter; c; c = c.parent) {
      c.calls++;
      if (c.inFlight++ === 0) c.roundTrips++;
    }
    try {
      const result = await next(args);
      if (kind) {
        const output = result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] };
        const { read, write } = unitsOf(output.ConsumedCapacity, kind);
        for (let c: CallCount | undefined = counter; c; c = c.parent) {
          c.readUnits += read;
          c.writeUnits += write;
        }
      }
      return result;
    } finally {
      for (let c: CallCount | undefined = counter; c; c = c.parent) c.inFlight--;
    }
  },
  { step: 'initialize', name: 'countDynamoDbCalls' },
);

export const db = DynamoDBDocumentClient.from(base, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});

export const tableName = (): string => config.tableName;

interface DynamoDbUsage {
  calls: number;
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
  parts?: Record<string, DynamoDbUsage>;
}

/**
 * Runs `fn`, returning its result and the DynamoDB calls, round trips and capacity units it
 * used. Nested in another scope, its usage counts in that one too.
 */
export async function countDynamoDbCalls<T>(fn: () => Promise<T>): Promise<{ result: T } & DynamoDbUsage> {
  const parent = callCounter.getStore();
  const counter: CallCount = {
    calls: 0,
    roundTrips: 0,
    inFlight: 0,
    readUnits: 0,
    writeUnits: 0,
    parts: {},
    ...(parent && { parent }),
  };
  const result = await callCounter.run(counter, fn);
  const { calls, roundTrips, readUnits, writeUnits, parts } = counter;
  return {
    result,
    calls,
    roundTrips,
    readUnits,
    writeUnits,
    ...(Object.keys(parts).length > 0 && { parts }),
  };
}

/**
 * Runs `fn` as a named part of the current scope (what the bench splits a Lambda's units by):
 * its usage is added to the scope's `parts[name]` as well as to the scope itself.
 */
export async function dynamoDbPart<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const parent = callCounter.getStore();
  if (!parent) return fn();
  const { result, calls, roundTrips, readUnits, writeUnits } = await countDynamoDbCalls(fn);
  const part = parent.parts[name] ?? { calls: 0, roundTrips: 0, readUnits: 0, writeUnits: 0 };
  parent.parts[name] = {
    calls: part.calls + calls,
    roundTrips: part.roundTrips + roundTrips,
    readUnits: part.readUnits + readUnits,
    writeUnits: part.writeUnits + writeUnits,
  };
  return result;
}

/** The number of DynamoDB calls made so far within the current `countDynamoDbCalls` scope. */
export const dynamoDbCallsSoFar = (): number => callCounter.getStore()?.calls ?? 0;

/** The sequential DynamoDB round trips so far within the current `countDynamoDbCalls` scope. */
export const dynamoDbRoundTripsSoFar = (): number => callCounter.getStore()?.roundTrips ?? 0;

/** The read and write units consumed so far within the current `countDynamoDbCalls` scope. */
export const dynamoDbUnitsSoFar = (): { readUnits: number; writeUnits: number } => {
  const counter = callCounter.getStore();
  return { readUnits: counter?.readUnits ?? 0, writeUnits: counter?.writeUnits ?? 0 };
};

/** Every item of a query, following `LastEvaluatedKey` (for bounded result sets only). */
export async function queryAll(input: QueryCommandInput): Promise<Record<string, NativeAttributeValue>[]> {
  const items: Record<string, NativeAttributeValue>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

export const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error &&
  (error.name === 'ConditionalCheckFailedException' ||
    (error.name === 'TransactionCanceledException' &&
      ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).some(
        (r) => r.Code === 'ConditionalCheckFailed',
      )));

/**
 * A transaction cancelled because another transaction was writing one of its items at that
 * moment (`TransactionConflict`, no condition failed): nothing was written, and sending it again
 * is safe.
 */
const isTransactionConflict = (error: unknown): boolean =>
  error instanceof Error &&
  error.name === 'TransactionCanceledException' &&
  ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).some(
    (r) => r.Code === 'TransactionConflict',
  ) &&
  !isConditionFailure(error);

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * An `UpdateItem` for a transaction that sets `fields` and `ADD`s `delta` (zeros left out): how
 * every counter item is written, created on first use.
 */
export function counterUpdate(
  key: ItemKey,
  fields: Record<string, unknown>,
  delta: Readonly<Record<string, number | undefined>>,
): TransactItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const adds: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  for (const [name, value] of Object.entries(delta)) {
    if (!value) continue;
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    adds.push(`#${name} :${name}`);
  }
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}${adds.length > 0 ? ` ADD ${adds.join(', ')}` : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** A transaction's items by role: each name holds one item, several, or none. */
export type NamedItems<N extends string> = { [K in N]?: TransactItem | TransactItem[] | undefined };

export type TransactResult<N extends string> =
  | { committed: true }
  | {
      committed: false;
      failed: N[];
      /** The item now under each failed name that asked for it (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`). */
      current: Partial<Record<N, Record<string, NativeAttributeValue>>>;
    };

/**
 * Commits the named items as one transaction. When a condition fails, nothing is written and
 * the result names the items whose condition failed, so a caller reads a race by role ("the
 * idempotency record already existed"), never by position in the list.
 */
export async function transact<N extends string>(items: NamedItems<N>): Promise<TransactResult<N>> {
  const { names, list } = flattenItems(items);
  try {
    await db.send(new TransactWriteCommand({ TransactItems: list }));
    return { committed: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // The document client does not convert an error's items: `Item` is still in the wire format.
    const reasons =
      (error as { CancellationReasons?: { Code?: string; Item?: Record<string, AttributeValue> }[] })
        .CancellationReasons ?? [];
    const failed: N[] = [];
    const current: Partial<Record<N, Record<string, NativeAttributeValue>>> = {};
    names.forEach((name, n) => {
      const reason = reasons[n];
      if (reason?.Code !== 'ConditionalCheckFailed') return;
      if (!failed.includes(name)) failed.push(name);
      if (reason.Item) current[name] = unmarshall(reason.Item);
    });
    return { committed: false, failed, current };
  }
}

/**
 * `transact`, sent again while DynamoDB cancels it for a conflict with another transaction on
 * one of its items at that moment (nothing was written): exponential backoff with full jitter,
 * so many writers of one hot item (a payment refunded concurrently) spread out.
 */
export function transactRetryingConflicts<N extends string>(
  items: NamedItems<N> | (() => NamedItems<N>),
  retries = 12,
): Promise<TransactResult<N>> {
  return pRetry(() => transact(typeof items === 'function' ? items() : items), {
    retries,
    minTimeout: 5,
    maxTimeout: 400,
    factor: 2,
    randomize: true,
    shouldRetry: ({ error }) => isTransactionConflict(error),
  });
}

/** The transaction's items in order, and the name of each. */
export function flattenItems<N extends string>(items: NamedItems<N>): { names: N[]; list: TransactItem[] } {
  const names: N[] = [];
  const list: TransactItem[] = [];
  for (const [name, value] of Object.entries(items) as [N, TransactItem | TransactItem[] | undefined][]) {
    for (const item of value === undefined ? [] : Array.isArray(value) ? value : [value]) {
      names.push(name);
      list.push(item);
    }
  }
  return { names, list };
}

export type { ItemKey } from './keys.ts';

/**
 * Adds `delta` to a counter item's `count` (an absent item or attribute counts 0); with `below`,
 * only while the count is below it (the transaction is then refused on this item).
 */
export function counterChange(key: ItemKey, delta: 1 | -1, below?: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD #count :delta SET #type = :type',
      ...(below !== undefined && { ConditionExpression: 'attribute_not_exists(#count) OR #count < :below' }),
      ExpressionAttributeNames: { '#count': 'count', '#type': 'type' },
      ExpressionAttributeValues: {
        ':delta': delta,
        ':type': 'counter',
        ...(below !== undefined && { ':below': below }),
      },
    },
  };
}

/** The attributes the table adds to every entity: its key, its entity tag and its index keys. */
const STORAGE_ATTRIBUTES = ['pk', 'sk', 'type', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk'];

/** An item without the storage attributes (and `also`): the entity's own record. */
export function recordOf<T>(item: Record<string, unknown>, also: readonly string[] = []): T {
  const drop = new Set([...STORAGE_ATTRIBUTES, ...also]);
  return Object.fromEntries(Object.entries(item).filter(([k]) => !drop.has(k))) as T;
}

/**
 * Strongly consistent reads of several items in one round trip, asking again for any keys
 * DynamoDB leaves unprocessed; the result is in the order of `keys` (`undefined` if absent).
 */
export async function batchGetConsistent(
  keys: ItemKey[],
): Promise<(Record<string, NativeAttributeValue> | undefined)[]> {
  const table = tableName();
  const found: Record<string, NativeAttributeValue>[] = [];
  let pending = keys;
  for (let attempt = 0; pending.length > 0 && attempt < 5; attempt++) {
    const { Responses, UnprocessedKeys } = await db.send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(Responses?.[table] ?? []));
    pending = (UnprocessedKeys?.[table]?.Keys as ItemKey[] | undefined) ?? [];
  }
  if (pending.length > 0) throw new Error('BatchGetItem left keys unprocessed');
  return keys.map((k) => found.find((item) => item.pk === k.pk && item.sk === k.sk));
}

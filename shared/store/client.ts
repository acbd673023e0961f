/**
 * The DynamoDB document client, built once per process. A middleware counts the calls made
 * while serving each request (reported in the request log and by the benchmark).
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';

const callCounter = new AsyncLocalStorage<{ calls: number }>();

const base = new DynamoDBClient({});
base.middlewareStack.add(
  (next) => async (args) => {
    const counter = callCounter.getStore();
    if (counter) counter.calls++;
    return next(args);
  },
  { step: 'initialize', name: 'countDynamoDbCalls' },
);

export const db = DynamoDBDocumentClient.from(base, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
});

export const tableName = (): string => config.tableName;

/** Runs `fn`, returning its result and how many DynamoDB calls it made. */
export async function countDynamoDbCalls<T>(fn: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const counter = { calls: 0 };
  const result = await callCounter.run(counter, fn);
  return { result, calls: counter.calls };
}

/** The number of DynamoDB calls made so far within the current `countDynamoDbCalls` scope. */
export const dynamoDbCallsSoFar = (): number => callCounter.getStore()?.calls ?? 0;

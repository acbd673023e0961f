/**
 * Stand-ins for the stack's event source mappings and schedules, with Lambda's batch
 * semantics, so background functions run locally exactly as their handlers are exported:
 * - DynamoDB Streams → handler: batches in shard order, the mapping's filters applied first
 *   (a record passes if any pattern matches, as Lambda ORs a mapping's filters; records they
 *   drop never reach the handler, a batch they empty is no invocation),
 *   `batchItemFailures` (report batch item failures) retries from the first failed record, a
 *   finite number of retries, then the batch is skipped and described to `onFailure` as Lambda
 *   describes it to the stack's on-failure destination (`DDBStreamBatchInfo`);
 * - SQS → handler: batches of up to 10, partial batch responses delete only the successes;
 *   the rest reappear after their visibility timeout (which the handler may change) and the
 *   queue's redrive policy moves them to the DLQ after `maxReceiveCount` receives;
 * - schedules → handler every `everyMs`.
 * A persisted runtime keeps each stream shard's position in its data folder, as Lambda's mapping
 * does, so a restart reads on from there instead of the stream's last 24 h again.
 */

import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DynamoDBStreamEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { withoutSdkLogging } from '../../shared/aws-client.ts';
import { type FilterPattern, matchesAnyFilter } from '../../shared/domain/stream-filters.ts';
import { lambdaStreamRecord } from '../../shared/store/stream-records.ts';

export interface Poller {
  stop(): Promise<void>;
}

type BatchResult = { batchItemFailures?: { itemIdentifier: string }[] } | undefined;
export type StreamHandler = (event: DynamoDBStreamEvent) => Promise<BatchResult>;
export type QueueHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

const logFailure = (message: string, fields: Record<string, unknown>) =>
  console.error(JSON.stringify({ level: 'error', time: new Date().toISOString(), message, ...fields }));

/** Sleeps unless stopped first (a stopped poller must not hold the process for a backoff). */
const pause = (ms: number, signal: AbortSignal) => sleep(ms, undefined, { signal }).catch(() => undefined);

/** The longest pause after failed ticks: a missing queue or a stopped emulator is retried this often. */
const MAX_FAILURE_PAUSE_MS = 2000;

/**
 * Runs `tick` until stopped; `tick` returns whether it found work (idle ticks sleep). Failing ticks
 * sleep twice as long each time, up to `MAX_FAILURE_PAUSE_MS`, so an outage logs a line every
 * 2 s per poller instead of one per idle interval.
 */
function loop(tick: (signal: AbortSignal) => Promise<boolean>, idleMs: number): Poller {
  const controller = new AbortController();
  const { signal } = controller;
  const done = (async () => {
    let failures = 0;
    while (!signal.aborted) {
      const busy = await tick(signal).then(
        (found) => {
          failures = 0;
          return found;
        },
        (error: unknown) => {
          failures += 1;
          if (!signal.aborted) logFailure('poller tick failed', { error: String(error), failures });
          return false;
        },
      );
      if (!busy)
        await pause(failures ? Math.min(idleMs * 2 ** failures, MAX_FAILURE_PAUSE_MS) : idleMs, signal);
    }
  })();
  return {
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

export interface StreamPollerOptions {
  dynamodb: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  tableName: string;
  handler: StreamHandler;
  /** The mapping's filters (as `FilterCriteria` in the stack): records none matches are dropped. */
  filters?: readonly FilterPattern[];
  batchSize?: number;
  /** Like the mapping's `retryAttempts`: after this many failed retries the batch is skipped. */
  retryAttempts?: number;
  /** The on-failure destination: gets a skipped batch's description (Lambda's JSON), else it is only logged. */
  onFailure?: (description: string) => Promise<unknown>;
  /**
   * Where each shard's position is kept across restarts (the last record handled, as Lambda's
   * mapping keeps it); without one, every start reads the stream from its oldest record.
   */
  positions?: StreamPositions;
  idleMs?: number;
}

const isoTime = (at: Date | undefined) => (at ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** What Lambda sends a stream mapping's on-failure destination: where the batch is, not its records. */
function failureDescription(
  streamArn: string,
  shardId: string,
  records: StreamRecord[],
  invokeCount: number,
) {
  const first = records[0]?.dynamodb;
  const last = records.at(-1)?.dynamodb;
  return JSON.stringify({
    requestContext: {
      requestId: randomUUID(),
      functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:outbox',
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: invokeCount,
    },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    version: '1.0',
    timestamp: new Date().toISOString(),
    DDBStreamBatchInfo: {
      shardId,
      startSequenceNumber: first?.SequenceNumber,
      endSequenceNumber: last?.SequenceNumber,
      approximateArrivalOfFirstRecord: isoTime(first?.ApproximateCreationDateTime),
      approximateArrivalOfLastRecord: isoTime(last?.ApproximateCreationDateTime),
      batchSize: records.length,
      streamArn,
    },
  });
}

export interface StreamPositions {
  load(): Record<string, string>;
  save(shardId: string, sequenceNumber: string): void;
}

/**
 * Positions in a JSON file (a persisted runtime's data folder), replaced whole at each save (a
 * rename), so a runtime killed mid-write leaves the previous positions. An unreadable file reads
 * as none: the stream is read from its oldest record, as without positions.
 */
export function streamPositionsFile(path: string): StreamPositions {
  let positions: Record<string, string> = {};
  return {
    load: () => {
      try {
        positions = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
      } catch {
        positions = {};
      }
      return { ...positions };
    },
    save: (shardId, sequenceNumber) => {
      positions[shardId] = sequenceNumber;
      writeFileSync(`${path}.tmp`, JSON.stringify(positions));
      renameSync(`${path}.tmp`, path);
    },
  };
}

const debugEnabled = () => process.env.LOG_LEVEL === 'debug';

export function startStreamPoller(options: StreamPollerOptions): Poller {
  const { streams, handler } = options;
  const batchSize = options.batchSize ?? 100;
  const retryAttempts = options.retryAttempts ?? 10;
  let streamArn: string | undefined;
  /** Open iterators per shard; a shard leaves the map when it is closed and drained. */
  const iterators = new Map<string, string>();
  const finished = new Set<string>();
  const saved = options.positions?.load() ?? {};

  /** After the shard's saved position, or from its oldest record (also when that position cannot be used). */
  const iteratorOf = async (arn: string, shardId: string) => {
    const after = saved[shardId];
    if (after) {
      const resumed = await streams
        .send(
          new GetShardIteratorCommand({
            StreamArn: arn,
            ShardId: shardId,
            ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
            SequenceNumber: after,
          }),
        )
        .catch((error: unknown) => {
          // Trimmed (older than the stream's 24 h) or refused: handled again, never skipped.
          logFailure('stream position not usable: reading the shard from its oldest record', {
            shardId,
            error: String(error),
          });
          return undefined;
        });
      if (resumed?.ShardIterator) return resumed.ShardIterator;
    }
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    return ShardIterator;
  };

  const discoverShards = async () => {
    streamArn ??= (await options.dynamodb.send(new DescribeTableCommand({ TableName: options.tableName })))
      .Table?.LatestStreamArn;
    if (!streamArn) return;
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const id = shard.ShardId;
      if (!id || iterators.has(id) || finished.has(id)) continue;
      // A child shard starts only once its parent is drained, keeping per-key order.
      if (shard.ParentShardId && iterators.has(shard.ParentShardId)) continue;
      const iterator = await iteratorOf(streamArn, id);
      if (iterator) iterators.set(id, iterator);
    }
  };

  const deliver = async (records: StreamRecord[], shardId: string, signal: AbortSignal) => {
    let pending = records;
    for (let attempt = 0; pending.length > 0 && !signal.aborted; attempt++) {
      const event: DynamoDBStreamEvent = {
        Records: pending.map((r) => lambdaStreamRecord(r, streamArn ?? '')),
      };
      const result = await handler(event).catch((error: unknown) => {
        logFailure('stream handler threw', { error: String(error) });
        return { batchItemFailures: [{ itemIdentifier: pending[0]?.dynamodb?.SequenceNumber ?? '' }] };
      });
      const firstFailed = result?.batchItemFailures?.[0]?.itemIdentifier;
      if (firstFailed === undefined) return;
      if (attempt >= retryAttempts) {
        logFailure('stream batch skipped after retries (on-failure destination)', {
          sequenceNumbers: pending.map((r) => r.dynamodb?.SequenceNumber),
        });
        const description = failureDescription(streamArn ?? '', shardId, pending, attempt + 1);
        await options.onFailure?.(description).catch((error: unknown) =>
          logFailure('on-failure destination refused the batch description', {
            error: String(error),
            description,
          }),
        );
        return;
      }
      const index = pending.findIndex((r) => r.dynamodb?.SequenceNumber === firstFailed);
      pending = index >= 0 ? pending.slice(index) : pending;
      await pause(Math.min(1000 * 2 ** attempt, 5_000), signal);
    }
  };

  let lastDiscovery = 0;
  return loop(async (signal) => {
    if (Date.now() - lastDiscovery > 1_000 || iterators.size === 0) {
      lastDiscovery = Date.now();
      await discoverShards();
    }
    let found = false;
    for (const [shardId, iterator] of iterators) {
      const { Records = [], NextShardIterator } = await streams.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: batchSize }),
      );
      if (Records.length > 0) {
        found = true;
        const matching = Records.filter((r) => matchesAnyFilter(r, options.filters));
        if (matching.length > 0) {
          if (debugEnabled()) {
            console.log(
              JSON.stringify({
                level: 'DEBUG',
                message: 'stream batch',
                shardId,
                sequenceNumbers: matching.map((r) => r.dynamodb?.SequenceNumber),
              }),
            );
          }
          await deliver(matching, shardId, signal);
        }
        // Handled (or given up on): a stopped poller keeps the batch it was in the middle of.
        const last = Records.at(-1)?.dynamodb?.SequenceNumber;
        if (!signal.aborted && last) options.positions?.save(shardId, last);
      }
      if (NextShardIterator) iterators.set(shardId, NextShardIterator);
      else {
        iterators.delete(shardId);
        finished.add(shardId);
      }
    }
    return found;
  }, options.idleMs ?? 200);
}

interface QueuePollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  handler: QueueHandler;
  batchSize?: number;
  idleMs?: number;
}

export function startQueuePoller(options: QueuePollerOptions): Poller {
  const { sqs, queueUrl, handler } = options;
  let queueArn: string | undefined;
  return loop(async () => {
    queueArn ??= (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes?.QueueArn;
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: options.batchSize ?? 10,
        // Short polls: the emulator's long poll can return a message twice when its visibility lapses mid-wait.
        WaitTimeSeconds: 0,
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return false;
    const records: SQSRecord[] = Messages.map((m) => ({
      messageId: m.MessageId ?? '',
      receiptHandle: m.ReceiptHandle ?? '',
      body: m.Body ?? '',
      attributes: (m.Attributes ?? {}) as unknown as SQSRecord['attributes'],
      messageAttributes: (m.MessageAttributes ?? {}) as unknown as SQSRecord['messageAttributes'],
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn ?? '',
      awsRegion: 'us-east-1',
    }));
    let failed: Set<string>;
    try {
      const result = await handler({ Records: records });
      failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      // A thrown handler fails the whole batch, as on Lambda.
      logFailure('queue handler threw', { error: String(error) });
      failed = new Set(records.map((r) => r.messageId));
    }
    const succeeded = records.filter((r) => !failed.has(r.messageId));
    if (succeeded.length > 0) {
      const { Failed = [] } = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: succeeded.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
        }),
      );
      if (Failed.length > 0) logFailure('could not delete processed messages', { failed: Failed });
    }
    return true;
  }, options.idleMs ?? 100);
}

export function startSchedule(name: string, everyMs: number, handler: () => Promise<unknown>): Poller {
  let last = 0;
  return loop(
    async () => {
      if (Date.now() - last < everyMs) return false;
      last = Date.now();
      await handler().catch((error: unknown) =>
        logFailure('scheduled handler failed', { schedule: name, error: String(error) }),
      );
      return false;
    },
    Math.min(everyMs, 1_000),
  );
}

export const localStreamsClient = (endpoint: string) =>
  withoutSdkLogging(
    new DynamoDBStreamsClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );

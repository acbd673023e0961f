/**
 * Every item write the table commits while a test runs, read from the table's own stream (what
 * DynamoDB recorded, whichever code wrote it), as the write-distribution test needs. Reads from
 * the stream's end when started (shards opened later from their start), in its own iterators
 * beside the runtime's outbox poller.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import { tableName } from '../../shared/store/client.ts';
import { testAwsEnv } from './local-env.ts';

export interface TableWrite {
  /** `pk|sk` of the item written. */
  key: string;
  /** The item's entity (`type` attribute), after the write or, for a delete, before it. */
  type: string | undefined;
  /** The account the item belongs to, when it says (`accountId` attribute). */
  accountId: string | undefined;
}

export interface WriteRecorder {
  writes: TableWrite[];
  stop(): Promise<void>;
}

const endpoint = testAwsEnv.AWS_ENDPOINT_URL_DYNAMODB;
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function recordTableWrites(): Promise<WriteRecorder> {
  const dynamodb = new DynamoDBClient({ endpoint, region: testAwsEnv.AWS_REGION, credentials });
  const streams = new DynamoDBStreamsClient({ endpoint, region: testAwsEnv.AWS_REGION, credentials });
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName() }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error('The table has no stream');
  const iterators = new Map<string, string>();
  const seen = new Set<string>();
  const open = async (shardId: string, from: ShardIteratorType) => {
    seen.add(shardId);
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: from }),
    );
    if (ShardIterator) iterators.set(shardId, ShardIterator);
  };
  const discover = async (from: ShardIteratorType) => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const id = shard.ShardId;
      // A shard closed before the start holds nothing written since.
      if (!id || seen.has(id) || (from === 'LATEST' && shard.SequenceNumberRange?.EndingSequenceNumber))
        continue;
      await open(id, from);
    }
  };
  await discover('LATEST');

  const writes: TableWrite[] = [];
  let running = true;
  let discovered = Date.now();
  const poll = async () => {
    while (running) {
      let found = false;
      for (const [shardId, iterator] of iterators) {
        const { Records = [], NextShardIterator } = await streams.send(
          new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }),
        );
        for (const record of Records) {
          const keys = record.dynamodb?.Keys;
          const image = record.dynamodb?.NewImage ?? record.dynamodb?.OldImage;
          writes.push({
            key: `${keys?.pk?.S}|${keys?.sk?.S}`,
            type: image?.type?.S,
            accountId: image?.accountId?.S,
          });
        }
        found ||= Records.length > 0;
        if (NextShardIterator) iterators.set(shardId, NextShardIterator);
        else iterators.delete(shardId);
      }
      // Shards opened since the start (DynamoDB rolls them over): read from their beginning.
      if (Date.now() - discovered > 2_000) {
        discovered = Date.now();
        await discover('TRIM_HORIZON');
      }
      // Gently: the runtime under test shares the emulator (a page holds up to 1,000 records).
      await sleep(found ? 100 : 250);
    }
  };
  const polling = poll();
  return {
    writes,
    async stop() {
      running = false;
      await polling;
    },
  };
}

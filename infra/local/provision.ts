/**
 * Creates the local table and queues from the same definitions the CDK stack uses
 * (`shared/resources.ts`). Idempotent: on a persisted `.data/` it only adds what is missing.
 */

import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { withoutSdkLogging } from '../../shared/aws-client.ts';
import { outboxReplayQueue, providerCallbackQueues, table, webhookQueues } from '../../shared/resources.ts';
import type { LocalSettings } from './settings.ts';

export async function provisionTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const attributes: AttributeDefinition[] = [
    { AttributeName: table.partitionKey, AttributeType: 'S' },
    { AttributeName: table.sortKey, AttributeType: 'S' },
    ...table.indexes.flatMap((index) => [
      { AttributeName: index.partitionKey, AttributeType: 'S' as const },
      { AttributeName: index.sortKey, AttributeType: 'S' as const },
    ]),
  ];
  const indexDefinition = (index: (typeof table.indexes)[number]) => ({
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'ALL' as const },
  });

  let existing: Set<string> | undefined;
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    existing = new Set((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName ?? ''));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }

  if (!existing) {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributes,
        KeySchema: [
          { AttributeName: table.partitionKey, KeyType: 'HASH' },
          { AttributeName: table.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: table.indexes.map(indexDefinition),
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
      }),
    );
    return;
  }
  // A data folder from an older version: add the indexes introduced since.
  for (const index of table.indexes.filter((i) => !existing.has(i.name))) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: attributes,
        GlobalSecondaryIndexUpdates: [{ Create: indexDefinition(index) }],
      }),
    );
  }
}

/**
 * local-aws-sqs counts a ChangeMessageVisibility as a receive (each failed attempt is one
 * receive plus one visibility change), so the local queue dead-letters after twice the stack's
 * count: the same 15 attempts as on AWS. The dispatcher itself counts attempts in the delivery.
 */
const LOCAL_MAX_RECEIVE_COUNT = 2 * webhookQueues.maxReceiveCount;

export interface LocalQueues {
  deliveryQueueUrl: string;
  deadLetterQueueUrl: string;
  providerCallbackQueueUrl: string;
  providerCallbackDeadLetterQueueUrl: string;
  outboxReplayQueueUrl: string;
  outboxFailureQueueUrl: string;
}

/** A queue and its DLQ with a redrive policy after `maxReceiveCount` receives. */
async function queueWithDlq(
  client: SQSClient,
  names: { queue: string; dlq: string },
  attributes: { visibilityTimeoutSeconds: number; retentionSeconds: number; maxReceiveCount: number },
): Promise<{ queueUrl: string; dlqUrl: string }> {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: names.dlq,
      Attributes: { MessageRetentionPeriod: String(attributes.retentionSeconds) },
    }),
  );
  const dlqUrl = dlq.QueueUrl ?? '';
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: names.queue,
      Attributes: {
        VisibilityTimeout: String(attributes.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(attributes.retentionSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: Attributes?.QueueArn ?? '',
          maxReceiveCount: attributes.maxReceiveCount,
        }),
      },
    }),
  );
  return { queueUrl: queue.QueueUrl ?? '', dlqUrl };
}

/**
 * The delivery queue, the provider callback queue and the outbox's replay queue, each with its
 * DLQ and the stack's redrive policy. The consumers of callbacks and replays never change a
 * message's visibility: their counts are the stack's.
 */
export async function provisionQueues(client: SQSClient, s: LocalSettings): Promise<LocalQueues> {
  const delivery = await queueWithDlq(
    client,
    { queue: s.deliveryQueueName, dlq: s.deadLetterQueueName },
    { ...webhookQueues, maxReceiveCount: LOCAL_MAX_RECEIVE_COUNT },
  );
  const callbacks = await queueWithDlq(
    client,
    { queue: s.providerCallbackQueueName, dlq: s.providerCallbackDeadLetterQueueName },
    providerCallbackQueues,
  );
  const replays = await queueWithDlq(
    client,
    { queue: s.outboxReplayQueueName, dlq: s.outboxFailureQueueName },
    outboxReplayQueue,
  );
  return {
    deliveryQueueUrl: delivery.queueUrl,
    deadLetterQueueUrl: delivery.dlqUrl,
    providerCallbackQueueUrl: callbacks.queueUrl,
    providerCallbackDeadLetterQueueUrl: callbacks.dlqUrl,
    outboxReplayQueueUrl: replays.queueUrl,
    outboxFailureQueueUrl: replays.dlqUrl,
  };
}

export const localDynamoDbClient = (s: LocalSettings) =>
  withoutSdkLogging(
    new DynamoDBClient({
      endpoint: `http://${s.host}:${s.dynamoDbPort}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );

export const localSqsClient = (s: LocalSettings) =>
  withoutSdkLogging(
    new SQSClient({
      endpoint: `http://${s.host}:${s.sqsPort}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );

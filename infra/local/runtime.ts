/**
 * The whole service on one machine: DynamoDB Local, the SQS and S3 emulators, the API on
 * loopback, and the demo account. `bin/local.ts` runs it; the integration tests boot it too.
 */

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { assertJava17, startDynamoDbLocal } from './dynamodb.ts';
import { type Closable, startS3, startSes, startSqs } from './emulators.ts';
import {
  localStreamsClient,
  type Poller,
  startQueuePoller,
  startSchedule,
  startStreamPoller,
  streamPositionsFile,
} from './pollers.ts';
import {
  type LocalQueues,
  localDynamoDbClient,
  localSqsClient,
  provisionQueues,
  provisionTable,
} from './provision.ts';
import type { DemoAccount } from './seed.ts';
import { type LocalSettings, localEnvironment } from './settings.ts';
import { assertPortFree } from './wait.ts';

interface RunningService {
  settings: LocalSettings;
  demo: DemoAccount;
  stop(): Promise<void>;
}

/**
 * A service secret: the environment's value when set (the tests sign their own edge-case
 * tokens), otherwise kept in the data folder so sessions and signatures survive restarts, or
 * random for in-memory runs.
 */
function localSecret(s: LocalSettings, envName: string, file: string): string {
  const fromEnv = process.env[envName];
  if (fromEnv) return fromEnv;
  if (s.inMemory) return randomBytes(32).toString('base64url');
  const path = join(s.dataDir, file);
  if (!existsSync(path)) writeFileSync(path, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(path, 'utf8').trim();
}

export async function startService(s: LocalSettings): Promise<RunningService> {
  assertJava17();
  mkdirSync(s.dataDir, { recursive: true });
  for (const [port, what, variable] of [
    [s.apiPort, 'API', 'PORT'],
    [s.dynamoDbPort, 'DynamoDB Local', 'DYNAMODB_PORT'],
    [s.sqsPort, 'SQS', 'SQS_PORT'],
    [s.s3Port, 'S3', 'S3_PORT'],
    [s.sesPort, 'SES', 'SES_PORT'],
  ] as const) {
    await assertPortFree(s.host, port, what, variable);
  }

  const stoppers: (() => Promise<unknown> | unknown)[] = [];
  const stop = async () => {
    for (const stopOne of stoppers.reverse()) await stopOne();
  };
  try {
    const [dynamo, sqs, s3, ses] = await Promise.all([
      startDynamoDbLocal(s),
      startSqs(s),
      startS3(s),
      startSes(s),
    ]);
    stoppers.push(
      () => stopChild(dynamo),
      () => sqs.close(),
      () => (s3 as Closable).close(),
      () => ses.close(),
    );

    await provisionTable(localDynamoDbClient(s), s.tableName);
    const queues = await provisionQueues(localSqsClient(s), s);
    Object.assign(process.env, localEnvironment(s, localSecret(s, 'JWT_SECRET', 'jwt-secret')), {
      PIX_SIGNING_SECRET: localSecret(s, 'PIX_SIGNING_SECRET', 'pix-signing-secret'),
      WEBHOOK_QUEUE_URL: queues.deliveryQueueUrl,
      PROVIDER_CALLBACK_QUEUE_URL: queues.providerCallbackQueueUrl,
    });

    // Imported only now: handlers and stores read their configuration at module scope.
    const { seedDemoAccount } = await import('./seed.ts');
    const { createApiServer } = await import('./http-server.ts');
    const demo = await seedDemoAccount(s.dataDir, s.baseUrl);
    if (!s.inMemory) await (await import('./requeue.ts')).requeueWaitingDeliveries();
    stoppers.push(...(await startBackgroundFunctions(s, queues)).map((p) => () => p.stop()));
    const server = createApiServer();
    await new Promise<void>((resolve) => server.listen(s.apiPort, s.host, resolve));
    stoppers.push(() => closeServer(server));
    return { settings: s, demo, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startBackgroundFunctions(s: LocalSettings, queues: LocalQueues): Promise<Poller[]> {
  const { loadBackgroundFunctions } = await import('./functions.ts');
  const functions = await loadBackgroundFunctions();
  const dynamodb = localDynamoDbClient(s);
  const streams = localStreamsClient(`http://${s.host}:${s.dynamoDbPort}`);
  const sqs = localSqsClient(s);
  return [
    ...functions.tableStream.map(({ handler, filters }) =>
      startStreamPoller({
        dynamodb,
        streams,
        tableName: s.tableName,
        handler,
        ...(filters && { filters }),
        ...(!s.inMemory && { positions: streamPositionsFile(join(s.dataDir, 'stream-positions.json')) }),
        // The stack's on-failure destination.
        onFailure: (description) =>
          sqs.send(
            new SendMessageCommand({ QueueUrl: queues.outboxReplayQueueUrl, MessageBody: description }),
          ),
      }),
    ),
    // One description at a time, as the stack's event source takes them.
    ...functions.outboxReplayQueue.map((handler) =>
      startQueuePoller({ sqs, queueUrl: queues.outboxReplayQueueUrl, handler, batchSize: 1 }),
    ),
    // Several concurrent pollers, as Lambda runs several dispatchers for a busy queue.
    ...functions.webhookQueue.flatMap((handler) =>
      Array.from({ length: 4 }, () => startQueuePoller({ sqs, queueUrl: queues.deliveryQueueUrl, handler })),
    ),
    ...functions.providerCallbackQueue.map((handler) =>
      startQueuePoller({ sqs, queueUrl: queues.providerCallbackQueueUrl, handler }),
    ),
    ...functions.schedules.map(({ name, everyMs, handler }) => startSchedule(name, everyMs, handler)),
  ];
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/**
 * Where the local runtime listens and keeps its data. Ports and the data folder come from the
 * environment so tests can run a second runtime beside `npm start`.
 */

import { join, resolve } from 'node:path';

const port = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) throw new Error(`${name} must be a TCP port`);
  return value;
};

export interface LocalSettings {
  host: string;
  apiPort: number;
  dynamoDbPort: number;
  sqsPort: number;
  s3Port: number;
  sesPort: number;
  /** Where the handlers send e-mail: the SES emulator, unless `SES_ENDPOINT_URL` says otherwise (tests). */
  sesEndpoint: string;
  dataDir: string;
  inMemory: boolean;
  baseUrl: string;
  tableName: string;
  bucketName: string;
  deliveryQueueName: string;
  deadLetterQueueName: string;
  providerCallbackQueueName: string;
  providerCallbackDeadLetterQueueName: string;
  outboxReplayQueueName: string;
  outboxFailureQueueName: string;
}

export function localSettings(options: { inMemory?: boolean } = {}): LocalSettings {
  const host = '127.0.0.1';
  const apiPort = port('PORT', 3000);
  const sesPort = port('SES_PORT', 8005);
  return {
    host,
    apiPort,
    dynamoDbPort: port('DYNAMODB_PORT', 8100),
    sqsPort: port('SQS_PORT', 9324),
    s3Port: port('S3_PORT', 4569),
    sesPort,
    sesEndpoint: process.env.SES_ENDPOINT_URL ?? `http://${host}:${sesPort}`,
    dataDir: resolve(process.env.DATA_DIR || '.data'),
    inMemory: options.inMemory ?? false,
    baseUrl: `http://${host}:${apiPort}`,
    tableName: 'pix-service',
    bucketName: 'pix-evidence',
    deliveryQueueName: 'webhook-deliveries',
    deadLetterQueueName: 'webhook-deliveries-dlq',
    providerCallbackQueueName: 'provider-callbacks',
    providerCallbackDeadLetterQueueName: 'provider-callbacks-dlq',
    outboxReplayQueueName: 'outbox-replay',
    outboxFailureQueueName: 'outbox-failures',
  };
}

/** The dummy credentials every local client signs with (the S3 emulator is told to accept them). */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * The environment the handlers read, pointing every AWS SDK client at the local servers. The
 * same variables a deployed Lambda gets from the stack, plus endpoints and dummy credentials.
 */
export function localEnvironment(s: LocalSettings, jwtSecret: string): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: `http://${s.host}:${s.dynamoDbPort}`,
    AWS_ENDPOINT_URL_DYNAMODB_STREAMS: `http://${s.host}:${s.dynamoDbPort}`,
    AWS_ENDPOINT_URL_SQS: `http://${s.host}:${s.sqsPort}`,
    AWS_ENDPOINT_URL_S3: `http://${s.host}:${s.s3Port}`,
    AWS_ENDPOINT_URL_SESV2: s.sesEndpoint,
    EMAIL_FROM: 'Pix <no-reply@pix.localhost>',
    TABLE_NAME: s.tableName,
    EVIDENCE_BUCKET: s.bucketName,
    JWT_SECRET: jwtSecret,
    PUBLIC_BASE_URL: s.baseUrl,
    API_VERSION: '2026-11-01',
    ALLOW_HTTP_WEBHOOKS: 'true',
    // Acquirer secrets (set-provider) as owner-only files under the data folder.
    ACQUIRER_SECRETS_DIR: join(s.dataDir, 'acquirer'),
    // EMF metric documents, one per line, beside the request log rather than in it.
    METRICS_FILE: join(s.dataDir, 'metrics.jsonl'),
  };
}

/**
 * The in-process SQS, S3 and SES emulators (`local-aws-sqs`, `@20minutes/s3rver`,
 * `aws-ses-v2-local`) on loopback.
 */

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from '@20minutes/s3rver';
import { createSqsServer } from 'local-aws-sqs';
import { evidenceBucket } from '../../shared/resources.ts';
import { LOCAL_CREDENTIALS, type LocalSettings } from './settings.ts';

export interface Closable {
  close(): Promise<unknown> | unknown;
}

export async function startSqs(s: LocalSettings): Promise<Closable> {
  const server = await createSqsServer({
    port: s.sqsPort,
    hostname: s.host,
    emulateQueueCreationLifecycle: false,
  });
  return { close: () => new Promise((resolve) => server.close(() => resolve(undefined))) };
}

/** The bucket's CORS rule as S3 XML, from the definition the stack uses. */
const corsXml = (): string => {
  const { allowedMethods, allowedOrigins, allowedHeaders, maxAgeSeconds } = evidenceBucket.cors;
  const rule = [
    ...allowedOrigins.map((o) => `<AllowedOrigin>${o}</AllowedOrigin>`),
    ...allowedMethods.map((m) => `<AllowedMethod>${m}</AllowedMethod>`),
    ...allowedHeaders.map((h) => `<AllowedHeader>${h}</AllowedHeader>`),
    `<MaxAgeSeconds>${maxAgeSeconds}</MaxAgeSeconds>`,
  ].join('');
  return `<CORSConfiguration><CORSRule>${rule}</CORSRule></CORSConfiguration>`;
};

/**
 * s3rver verifies SigV4 signatures (presigned evidence URLs included) against its own key
 * registry, which only knows `S3RVER`: register the dummy credentials the handlers sign with
 * (`localEnvironment`), so a presigned URL is checked exactly as S3 would check it.
 */
function registerLocalCredentials(accessKeyId: string, secretAccessKey: string): void {
  const account = createRequire(import.meta.url)('@20minutes/s3rver/lib/models/account.js') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  };
  account.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
}

export async function startS3(s: LocalSettings): Promise<Closable> {
  registerLocalCredentials(LOCAL_CREDENTIALS.accessKeyId, LOCAL_CREDENTIALS.secretAccessKey);
  const directory = s.inMemory ? mkdtempSync(join(tmpdir(), 'pix-s3-')) : join(s.dataDir, 's3');
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({
    port: s.s3Port,
    address: s.host,
    silent: true,
    directory,
    resetOnClose: s.inMemory,
    configureBuckets: [{ name: s.bucketName, configs: [corsXml()] }],
  });
  await server.run();
  // An in-memory run's objects go with it: the folder too, not only its contents.
  if (!s.inMemory) return server;
  return {
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The SES v2 emulator: keeps every message in memory, shows them at `http://<host>:<port>/` and
 * lists them as JSON at `GET /store` (what the tests read).
 */
export async function startSes(s: LocalSettings): Promise<Closable> {
  // Imported here, not at the top (about 0.5 s of loading): it overlaps DynamoDB Local's JVM start.
  // A CommonJS module: its `default` export is the server factory.
  const { default: sesEmulator } = await import('aws-ses-v2-local');
  const server = await sesEmulator.default({ host: s.host, port: s.sesPort });
  return {
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeAllConnections();
      }),
  };
}

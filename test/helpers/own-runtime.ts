/**
 * A runtime of a test file's own (`node bin/local.ts --in-memory` on its own ports), for a test
 * that breaks something the suite's runtime must keep (SES, a queue). Stopped after the file.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll } from 'vitest';

export interface OwnRuntimePorts {
  PORT: string;
  DYNAMODB_PORT: string;
  SQS_PORT: string;
  S3_PORT: string;
  SES_PORT: string;
}

/**
 * A second runtime's ports, `slot` apart from the bases (API 3000, DynamoDB 8000, SQS 9000,
 * S3 4300, SES 7000) and moved by `TEST_PORT_OFFSET` like the suite's own: each file that starts
 * one takes a slot of its own (350, 365, 380, 395 so far; the suite's runtime is at 310–330).
 */
export function ownRuntimePorts(slot: number): OwnRuntimePorts {
  const port = (base: number) => String(base + slot + Number(process.env.TEST_PORT_OFFSET ?? 0));
  return {
    PORT: port(3000),
    DYNAMODB_PORT: port(8000),
    SQS_PORT: port(9000),
    S3_PORT: port(4300),
    SES_PORT: port(7000),
  };
}

export interface OwnRuntime {
  /** Starts it on `dataDir`, with these variables added to the environment; resolves once it is ready. */
  start(dataDir: string, env?: Record<string, string>): Promise<void>;
  /** Everything it printed so far (its log records are JSON lines). */
  output(): string;
  /** Its log records with this message. */
  logged(message: string): Record<string, unknown>[];
}

/** Call at the top of a test file: the runtime is stopped after the file. */
export function ownRuntime(ports: OwnRuntimePorts): OwnRuntime {
  let output = '';
  let child: ChildProcess | undefined;
  afterAll(() => child && stop(child));
  return {
    output: () => output,
    logged: (message) =>
      output.split('\n').flatMap((line) => {
        try {
          const record = JSON.parse(line) as Record<string, unknown>;
          return record.message === message ? [record] : [];
        } catch {
          return [];
        }
      }),
    start: (dataDir, env = {}) => {
      const started = spawn(process.execPath, ['bin/local.ts', '--in-memory'], {
        env: { ...process.env, ...ports, DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
        stdio: 'pipe',
        detached: true,
      });
      child = started;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${output}`)), 60_000);
        const collect = (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('Pix service ready on')) {
            clearTimeout(timer);
            resolve();
          }
        };
        started.stdout?.on('data', collect);
        started.stderr?.on('data', collect);
        started.once('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
      });
    },
  };
}

/** Ctrl-C, as a developer stops it; the whole process group after 10 s. */
function stop(child: ChildProcess): Promise<unknown> | undefined {
  if (child.exitCode !== null) return;
  return new Promise((resolve) => {
    const timer = setTimeout(() => process.kill(-(child.pid ?? 0), 'SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.kill('SIGINT');
  });
}
